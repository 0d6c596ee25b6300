#!/usr/bin/env python3
"""Virtual Bluetooth LE sensors for the board in a box, served by Google's Bumble in the guest.

The guest's kernel gets a controller through TRANSPORT (`vhci`: /dev/vhci; or a Bumble transport
such as `unix:PATH`, `serial:/dev/ttyS2`); three more on the same LocalLink host the sensors,
each a Bumble device with its own random static address and GATT database:

    F0:CA:12:00:00:01  heart rate (0x180D/0x2A37, notify) and battery (0x180F/0x2A19, read, notify)
    F0:CA:12:00:00:02  cycling speed and cadence (0x1816/0x2A5B, notify)
    F0:CA:12:00:00:03  cycling power (0x1818/0x2A63, indicate)

A timeline (seconds from the first subscription of each sensor): notifications at their usual
rates (heart rate 1 Hz, speed and cadence 2 Hz, power 4 Hz) with counters that roll over (the
wheel's 32 bits, the crank's 16, the 1/1024 s event times); the heart-rate sensor drops out at
DROP (disconnects, silent for 8 s) and comes back; speed and cadence sends garbage at 12 s (a
value its flags do not match, and an ATT PDU no client knows) and floods 300 notifications at
15 s; power indicates (each confirmed). Prints one JSON line per event for the check (deploy/board/ble_check.py).

    ble_sensors.py TRANSPORT [--drop S] [--for S] [--steady]      (deploy/board/ble_check.py runs it)

--steady: the usual rates only, for the cost bench (board.py --sensor-bench).
"""
import argparse, asyncio, json, logging, os, struct, sys, time

from bumble.controller import Controller
from bumble.device import Device
from bumble.gatt import Characteristic, Service
from bumble.core import UUID, AdvertisingData
from bumble.hci import Address
from bumble.link import LocalLink
from bumble.transport import open_transport

T0 = time.monotonic()


def say(**kw):
    kw["t"] = round(time.monotonic() - T0, 3)
    print(json.dumps(kw), flush=True)


def sensor(link, name, address, services):
    ctrl = Controller(name, link=link)
    dev = Device.with_hci(name, Address(address), ctrl, ctrl)
    for s in services:
        dev.add_service(s)
    dev.advertising_data = bytes(AdvertisingData([
        (AdvertisingData.FLAGS, bytes([0x06])),
        (AdvertisingData.COMPLETE_LOCAL_NAME, name.encode()),
        (AdvertisingData.COMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS,
         b"".join(struct.pack("<H", int(s.uuid.to_hex_str(), 16)) for s in services)),
    ]))
    return dev


def char(uuid, props, value=b""):
    return Characteristic(UUID.from_16_bits(uuid), props, Characteristic.READABLE, value)


async def main():
    logging.basicConfig(level=os.environ.get("BUMBLE_LOGLEVEL", "WARNING").upper(), stream=sys.stderr)
    ap = argparse.ArgumentParser()
    ap.add_argument("sock")
    ap.add_argument("--drop", type=float, default=8)
    ap.add_argument("--for", dest="duration", type=float, default=40)
    ap.add_argument("--steady", action="store_true", help="the usual rates only: no drop-out, garbage or flood (the cost bench)")
    a = ap.parse_args()
    link = LocalLink()
    N, I = Characteristic.Properties.NOTIFY, Characteristic.Properties.INDICATE
    R = Characteristic.Properties.READ
    hr_c = char(0x2A37, N)
    batt = char(0x2A19, R | N, bytes([87]))
    csc_c = char(0x2A5B, N)
    pow_c = char(0x2A63, I)
    hr = sensor(link, "cairn-hr", "F0:CA:12:00:00:01",
                [Service(UUID.from_16_bits(0x180D), [hr_c, char(0x2A38, R, b"\x01")]), Service(UUID.from_16_bits(0x180F), [batt])])
    csc = sensor(link, "cairn-csc", "F0:CA:12:00:00:02",
                 [Service(UUID.from_16_bits(0x1816), [csc_c, char(0x2A5C, R, b"\x03\x00")])])
    pw = sensor(link, "cairn-power", "F0:CA:12:00:00:03",
                [Service(UUID.from_16_bits(0x1818), [pow_c, char(0x2A65, R, b"\x08\x00\x00\x00")])])
    subscribed = {}

    def watch(dev, ch, name):
        def on_connection(conn):
            say(event="connected", sensor=name, peer=str(conn.peer_address))
            conn.on("disconnection", lambda reason: say(event="disconnected", sensor=name, reason=reason))
        dev.on("connection", on_connection)
        ch.on("subscription", lambda conn, notify, indicate: (subscribed.setdefault(name, time.monotonic()),
                                                               say(event="subscribed", sensor=name, notify=notify, indicate=indicate)))

    watch(hr, hr_c, "hr")
    watch(csc, csc_c, "csc")
    watch(pw, pow_c, "power")

    spec = a.sock if a.sock == "vhci" or ":" in a.sock else "unix:" + a.sock
    async with await open_transport(spec) as t:
        # No public address: the kernel then sets a static random one (bluetoothd's), which
        # Bumble's link uses as the source of the guest's LE data, as its peers know it.
        Controller("guest", host_source=t.source, host_sink=t.sink, link=link)
        for d in (hr, csc, pw):
            await d.power_on()
            await d.start_advertising(auto_restart=True)
        say(event="advertising")
        end = time.monotonic() + a.duration
        sent = {"hr": 0, "csc": 0, "power": 0}

        async def heart():
            bpm, dropped = 60, False
            while time.monotonic() < end:
                await asyncio.sleep(1)
                if "hr" not in subscribed:
                    continue
                el = time.monotonic() - subscribed["hr"]
                if not dropped and not a.steady and el >= a.drop:
                    dropped = True
                    for c in list(hr.connections.values()):
                        await c.disconnect()
                    await hr.stop_advertising()
                    say(event="dropped", sensor="hr")
                    await asyncio.sleep(8)
                    del subscribed["hr"]
                    await hr.start_advertising(auto_restart=True)
                    say(event="back", sensor="hr")
                    continue
                bpm = 60 + (bpm - 59) % 140
                # 8-bit, contact detected, one RR interval (1/1024 s); every 5th 16-bit.
                v = struct.pack("<BHH", 0x17, bpm, 800) if bpm % 5 == 0 else struct.pack("<BBH", 0x16, bpm, 800)
                await hr.notify_subscribers(hr_c, v)
                sent["hr"] += 1

        async def speed_cadence():
            wheel, wt, crank, ct, garbage, flooded = 0xFFFFFFF8, 0xFC00, 0xFFFA, 0xFC00, False, False
            while time.monotonic() < end:
                await asyncio.sleep(0.5)
                if "csc" not in subscribed:
                    continue
                wheel = (wheel + 3) & 0xFFFFFFFF
                wt = (wt + 512) & 0xFFFF
                crank = (crank + 1) & 0xFFFF
                ct = (ct + 512) & 0xFFFF
                await csc.notify_subscribers(csc_c, struct.pack("<BIHHH", 0x03, wheel, wt, crank, ct))
                sent["csc"] += 1
                if not flooded and not a.steady and time.monotonic() - subscribed["csc"] >= 15:
                    flooded = True
                    say(event="flood", sensor="csc")
                    for i in range(300):
                        await csc.notify_subscribers(csc_c, struct.pack("<BIHHH", 0x03, wheel, wt, crank, ct))
                        sent["csc"] += 1
                    say(event="flooded", sensor="csc")
                if not garbage and not a.steady and time.monotonic() - subscribed["csc"] >= 12:
                    garbage = True
                    await csc.notify_subscribers(csc_c, b"\x03\x01")  # flags say 11 bytes follow
                    for c in list(csc.connections.values()):
                        csc.send_l2cap_pdu(c.handle, 4, b"\xfa\x00\xff\xee")  # no such ATT opcode
                    say(event="garbage", sensor="csc")

        async def power():
            # The same crank as speed and cadence's, 120 rpm: a revolution every other
            # measurement at 4 Hz, the ones between repeating the last (as a meter does).
            crank, ct, n = 0xFFF0, 0, 0
            while time.monotonic() < end:
                await asyncio.sleep(0.25)
                if "power" not in subscribed:
                    continue
                n += 1
                if n % 2 == 0:
                    crank = (crank + 1) & 0xFFFF
                    ct = (ct + 512) & 0xFFFF
                await pw.indicate_subscribers(pow_c, struct.pack("<HhHH", 0x20, 250, crank, ct))
                sent["power"] += 1

        await asyncio.gather(heart(), speed_cadence(), power())
        for k, n in sent.items():
            say(event="sent", sensor=k, count=n)
        say(event="done")


if __name__ == "__main__":
    asyncio.run(main())
