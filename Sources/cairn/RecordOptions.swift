/// `record`'s usage line, options and their help (`cairn record --help`, the man page, the config file's keys).
extension RecordCommand {
    static let usage =
        "cairn record [--gpsd <host[:port]>] [--dir <dir>] [--baro <auto|none|path>] [--sysfs-root <dir>] [--activity <activity>] [--close-after <minutes>] [--home <lat,lon,radius_m|none>] [--home-stand <minutes>] [--led <name|none>] [--button <path|none>] [--button-key <code>] [--clock <system|fix>] [--sync <seconds>] [--read-every <seconds>] [--status <file>] [--keep-days <days>] [--max-mb <mb>] [--timezone <auto|zone|±HH:MM>] [--raw <on|off>] [--sensor <address> ...] [--wheel <metres>] [--board <id>] [--config <file>] [--check] [--led-grant]"
    static let options = [
        OptionSpec(name: "--gpsd", valueName: "HOST[:PORT]", help: "gpsd's numeric address; localhost means 127.0.0.1. (default: 127.0.0.1:2947)"),
        OptionSpec(name: "--dir", valueName: "DIR", help: "Directory for the log files; created if missing. (default: /var/lib/cairn)"),
        OptionSpec(
            name: "--baro", valueName: "AUTO|NONE|PATH",
            help:
                "Barometer for climb: auto (the first IIO pressure sensor), none, or an IIO device directory (the one holding in_pressure_input). (default: auto)"
        ),
        OptionSpec(name: "--sysfs-root", valueName: "DIR", help: "Where sysfs is mounted, for --baro auto (tests use a fake tree). (default: /sys)"),
        OptionSpec(
            name: "--activity", valueName: "ACTIVITY",
            help: "ride, run, walk or drive: sets the jump limit, distance filter and stop speeds. (default: ride)"),
        OptionSpec(
            name: "--clock", valueName: "SYSTEM|FIX",
            help: "Judge fix age by the system clock or by the newest fix time (no RTC, replays). (default: system)"),
        OptionSpec(
            name: "--close-after", valueName: "MINUTES",
            help: "Standing still this long closes the trip (a bike left parked); shorter stops are pauses inside it. (default: 30)"),
        OptionSpec(
            name: "--home", valueName: "LAT,LON,RADIUS_M|NONE",
            help:
                "Home: standing there for --home-stand closes the trip, so it is delivered before the power goes. (default: the first privacy zone, if any)"
        ),
        OptionSpec(name: "--home-stand", valueName: "MINUTES", help: "Standing at home this long closes the trip, 1 to 60. (default: 2)"),
        OptionSpec(
            name: "--led", valueName: "NAME|NONE",
            help:
                "A status LED of the kernel's LED class, /sys/class/leds/NAME (the Pi's ACT, a GPIO LED from dtoverlay=gpio-led): solid with a fix, slow blink waiting for one, fast when something needs you, a wink while a ride waits to go up, a flicker while it goes, a glow once it is up. (default: none)"
        ),
        OptionSpec(
            name: "--button", valueName: "PATH|NONE",
            help:
                "The rider's button, an evdev device (/dev/input/cairn-button: a GPIO button from dtoverlay=gpio-key, named by the package's udev rule): a short press marks a lap, one held 2 s ends the trip now. Read when the recorder wakes anyway. (default: none)"
        ),
        OptionSpec(
            name: "--button-key", valueName: "CODE",
            help: "The button's key code, as in the overlay's keycode= (148, KEY_PROG1: a key nothing else on the board acts on). (default: 148)"),
        OptionSpec(
            name: "--sync", valueName: "SECONDS", help: "Worst-case loss window on power loss: sync at least this often, 1 to 60. (default: 5)"),
        OptionSpec(
            name: "--read-every", valueName: "SECONDS",
            help:
                "Take the reports gpsd has queued this often, 0 to the --sync interval; 0 reads each one as it comes (a live display). Every wake-up costs the board power. (default: the --sync interval, or the largest part of it up to 5 s that divides it: 60 -> 5)"
        ),
        OptionSpec(
            name: "--status", valueName: "FILE",
            help:
                "Write the live status here at most once a second (each time gpsd's reports are read), replaced atomically (read it with 'cairn status FILE'). (default: none)"
        ),
        OptionSpec(
            name: "--keep-days", valueName: "DAYS",
            help: "Retention: at start-up and after each trip, delete exported trips that ended more than this many days ago. (default: keep all)"),
        OptionSpec(
            name: "--max-mb", valueName: "MB",
            help:
                "Retention: delete the oldest exported trips while the logs take more than this. Never deletes a trip that was not exported. (default: no limit)"
        ),
        OptionSpec(
            name: "--timezone", valueName: "AUTO|ZONE|±HH:MM",
            help:
                "The zone whose UTC offset each trip records at its start (FIT's local time): auto (/etc/localtime), a zone name (Europe/Zurich, from /usr/share/zoneinfo), a TZif file, or a fixed offset like +02:00. (default: auto)"
        ),
        OptionSpec(
            name: "--sensor", valueName: "ADDRESS",
            help:
                "A Bluetooth LE sensor to record (heart rate, speed and cadence, power): AA:BB:CC:DD:EE:FF, then public or random when known (cairn sensors --watch tries it). Repeatable; in the config file one sensor line each.",
            repeatable: true),
        OptionSpec(
            name: "--wheel", valueName: "METRES",
            help:
                "The wheel's circumference, for a wheel sensor's distance and speed (a trainer's trip, a tunnel): 0.5 to 3.5 metres, as on the tyre's chart. (default: 2.105, 700x25C)"
        ),
        OptionSpec(
            name: "--raw", valueName: "ON|OFF",
            help:
                "Also log every fix gpsd delivered with the rules' verdict on it, so 'cairn info --why' can explain a trip and 'cairn convert --refilter' can run the rules again (about 30 bytes a fix; a 5 s sync padded to a 512-byte sector still fits one); off writes the logs of earlier versions. (default: on)"
        ),
        OptionSpec(
            name: "--board", valueName: "ID",
            help:
                "This board's name, recorded with each new trip and carried by every export (file names, GPX, FIT, GeoJSON, CSV, KML): 1 to 32 letters, digits, '.', '_' and '-', not starting with '.' or '-'. deploy/install.sh sets one in /etc/cairn.conf. (default: none)"
        ),
        OptionSpec(
            name: "--config", valueName: "FILE",
            help: "Read options from this file (key = value, keys are these option names without '--'); the command line wins."),
        OptionSpec(name: "--verbose", valueName: nil, help: "Also report each sync with the highest durable sequence number."),
        OptionSpec(name: "--check", valueName: nil, help: "Check the options and the config file, print the settings in effect, and exit."),
        OptionSpec(
            name: "--led-grant", valueName: nil,
            help:
                "As root, before the recorder starts (the unit's ExecStartPre): set the --led LED's timer trigger, hand its delay_on and delay_off to the owner of --dir, and exit. Nothing else."
        )
    ]
}
