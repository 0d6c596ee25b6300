import XCTest

@testable import cairn

/// Where an rclone path keeps its files on this machine, through the remotes that wrap others.
final class RcloneLocalRootsTests: XCTestCase {
    let config = RcloneLocalRoots.sections(
        """
        [home]
        type = local

        [nas]
        type = sftp
        host = nas.lan

        [sec]
        type = crypt
        remote = home:/card/enc
        password = x

        [secnas]
        type = crypt
        remote = nas:enc

        [ch]
        type = chunker
        remote = home:/card/ch

        [hs]
        type = hasher
        remote = sec:inner

        [a2]
        type = alias
        remote = a1:deeper

        [a1]
        type = alias
        remote = /card/a

        [u]
        type = union
        upstreams = /card/u1 "/media/stick/u 2":nc nas:u3:ro

        [c]
        type = combine
        upstreams = pi=/card/c1 far=nas:c2

        [loop]
        type = alias
        remote = loop:x

        [typeless]
        remote = home:/x
        """)

    func resolve(_ path: String) -> RcloneLocalRoots.Answer {
        RcloneLocalRoots.resolve(path, section: { self.config[$0] }, cwd: "/var/lib/cairn")
    }

    func testWrappersAreFollowedDownToLocalFolders() {
        let table: [(String, RcloneLocalRoots.Answer)] = [
            ("home:/media/stick/rides", .folders(["/media/stick/rides"])),
            ("home:rides", .folders(["/var/lib/cairn/rides"])),
            ("/media/stick/rides", .folders(["/media/stick/rides"])),
            ("rides", .folders(["/var/lib/cairn/rides"])),
            (":local:/mnt/x", .folders(["/mnt/x"])),
            ("nas:rides", .folders([])),
            ("sec:rides/unnamed", .folders(["/card/enc"])),
            ("secnas:rides", .folders([])),
            ("ch:rides", .folders(["/card/ch/rides"])),
            ("hs:rides", .folders(["/card/enc"])),
            ("a2:rides", .folders(["/card/a/deeper/rides"])),
            ("u:rides", .folders(["/card/u1/rides", "/media/stick/u 2/rides"])),
            ("c:pi/rides", .folders(["/card/c1/rides"])),
            ("c:far/rides", .folders([])),
            ("c:", .folders(["/card/c1"])),
            (":crypt,remote='home:/card/x':rides", .folders(["/card/x"])),
            ("nas,type=local:/srv", .folders(["/srv"])),
            (":s3,provider=AWS:bucket/rides", .folders([])),
            // rclone cleans a path by its text (r17: dotdot-after-symlink, dotdot-through-missing-folder)
            ("home:/card/tostick/../rides", .folders(["/card/rides"])),
            ("/stick/nothere/../../card/./rides", .folders(["/card/rides"])),
            // '' inside quotes is one quote (r17: quote-doubled-in-connection-string)
            (":alias,remote='/media/Bob''s stick':rides", .folders(["/media/Bob's stick/rides"]))
        ]
        for (path, want) in table { XCTAssertEqual(resolve(path), want, path) }
    }

    func testWhatCannotBeToldIsSaid() {
        for path in ["nope:rides", "loop:rides", "typeless:rides"] {
            guard case .unknown = resolve(path) else { return XCTFail("\(path): \(resolve(path))") }
        }
    }

    /// rclone reads RCLONE_CONFIG_NAME_KEY, then the backend's RCLONE_TYPE_KEY, over the config
    /// file (r17: env-RCLONE_ALIAS_REMOTE-to-card).
    func testTheEnvironmentOverridesTheConfigAsRcloneReadsIt() {
        let env = ["RCLONE_ALIAS_REMOTE": "/card/x", "RCLONE_CONFIG_A1_REMOTE": "/stick/y", "RCLONE_CONFIG_NEW_TYPE": "local"]
        XCTAssertEqual(Rclone.section("a2", config: config, environment: { env[$0] })?["remote"], "/card/x")
        XCTAssertEqual(Rclone.section("a1", config: config, environment: { env[$0] })?["remote"], "/stick/y")
        XCTAssertEqual(Rclone.section("new", config: config, environment: { env[$0] })?["type"], "local")
        XCTAssertNil(Rclone.section("none", config: config, environment: { env[$0] }))
        XCTAssertEqual(Rclone.section("sec", config: config, environment: { env[$0] })?["remote"], "home:/card/enc")
    }

    func testSplitKeepsLocalPathsWhole() {
        XCTAssertNil(RcloneLocalRoots.split("/media/a:b"))
        XCTAssertNil(RcloneLocalRoots.split("rides"))
        XCTAssertEqual(RcloneLocalRoots.split("nas:a:b")?.spec, "nas")
        XCTAssertEqual(RcloneLocalRoots.split(":crypt,remote=\"x:y\":z")?.sub, "z")
    }
}
