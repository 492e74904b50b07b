import Concord
import Foundation
import LMDB
import SplitMix

#if canImport(Glibc)
    import Glibc
#endif

/// Roles for the reliability suite. Returns nil for a role it does not know.
///
/// Fault injection is global to a process, so the faulted writes happen here, never in the test runner.
///
/// - `fault DIR OPERATION ERROR once|persistent`: writes `before-0…9`, arms ERROR (`ENOSPC`, `EIO`, `ENOMEM`,
///   `MAP_FULL`) in OPERATION (`beginTransaction`, `put`, `commit`, `setMapSize`), tries `during-…` writes
///   (three when persistent, then reads `before-0` and clears the fault), then writes `after-0…2`.
///   Prints `ack KEY BYTES` per acknowledged write, `refused KEY CODE MESSAGE` per error, `read-ok KEY`.
/// - `grow-until-refused DIR`: limits its address space so growing the map fails for real, writes 2 MiB values
///   until one is refused (`ack big-N`, `refused big-N MESSAGE`), prints `read-back K of N`, then `ack small` or `refused small …`.
/// - `hold-write DIR SUITE KEY`: writes KEY inside a write transaction, prints `in-write` and sleeps (to be killed).
/// - `write-many DIR SUITE KEYS CONTROL PHASES`: opens the store (no fsync), prints `ready`; for each comma-separated
///   count in PHASES waits for the file CONTROL/go-N, makes that many writes cycling over KEYS keys, printing
///   `phase N writes W bytes B` (B: the size of data.mdb) every 10,000 writes and at the end of the phase.
/// - `fork-after-open DIR SUITE`: writes `parent-0…9`, forks; the child tries the inherited store and then a fresh
///   one, exiting with a bit set per surprise (1 inherited write worked, 2 inherited read worked, 4 fresh open or
///   write failed, 8 fresh read wrong); the parent prints `child-exit N` or `child-signal N`, then writes `parent-after-0…9`.
/// - `set-nested DIR SUITE KIND DEPTH`: sets a value nested DEPTH levels (`array` or `dictionary`), printing
///   `stored` or `refused MESSAGE`, and `last-seq N` before and after.
/// - `observe-and-list DIR SUITE`: an app that observes the store and, on every change, reads the suite's keys
///   again (as a settings screen refreshes), printing `ready` once observing, then `keys N` per change.
/// - `fuzz-targets`: prints the name of every fuzzed decoder, one per line.
/// - `fuzz TARGET SEED ITERATIONS CURRENT`: a bounded fuzz loop over a `FuzzTargets` decoder; each input is written to
///   the file CURRENT before it is decoded, so a crash leaves it behind. Prints `fuzz TARGET iterations N decoded D`.
///   Exits 5 when a decoded input breaks a property (`failure MESSAGE`).
/// - `fuzz-replay TARGET FILE...`: decodes each file, printing `FILE decoded` or `FILE rejected: REASON`; exits 5 on a failure.
enum ReliabilityRoles {
    static func run(_ role: String, _ args: [String]) throws -> Int32? {
        switch role {
        case "fault": return try fault(args)
        case "grow-until-refused": return try growUntilRefused(args)
        case "hold-write": return try holdWrite(args)
        case "write-many": return try writeMany(args)
        case "fork-after-open": return try forkAfterOpen(args)
        case "set-nested": return try setNested(args)
        case "observe-and-list": return try observeAndList(args)
        case "fuzz-targets":
            for target in FuzzTargets.all { say(target.name) }
            return 0
        case "fuzz": return try fuzz(args)
        case "fuzz-replay": return try fuzzReplay(args)
        default: return nil
        }
    }

    // MARK: - I/O faults

    static func fault(_ args: [String]) throws -> Int32 {
        let (dir, operationName, errorName, mode) = (args[0], args[1], args[2], args[3])
        let operations: [String: FaultInjection.Operation] = [
            "beginTransaction": .beginTransaction, "put": .put, "commit": .commit, "setMapSize": .setMapSize
        ]
        let codes: [String: Int32] = ["ENOSPC": ENOSPC, "EIO": EIO, "ENOMEM": ENOMEM, "MAP_FULL": LMDBError.mapFull]
        guard let operation = operations[operationName], let code = codes[errorName], mode == "once" || mode == "persistent" else {
            say("usage: fault DIR OPERATION ERROR once|persistent")
            return 2
        }
        // Map growth only happens when the map is full: start small and make the faulted writes large.
        let growth = operation == .setMapSize
        var options = Store.Options()
        if growth { options.initialMapSize = 1 << 20 }
        let suite = try Store(path: dir, options: options).suite("fault")
        let small = Data(repeating: 0x61, count: growth ? 64 << 10 : 100)
        let large = growth ? Data(repeating: 0x62, count: 3 << 20) : small

        func attempt(_ key: String, _ value: Data) {
            do {
                try suite.set(value, forKey: key)
                say("ack \(key) \(value.count)")
            } catch let error as ConcordError {
                if error.code == .storage, let code = error.systemCode {
                    say("refused \(key) \(code) \(error)")
                } else {
                    say("refused \(key) store \(error)")
                }
            } catch {
                say("refused \(key) other \(error)")
            }
        }

        for i in 0..<10 { attempt("before-\(i)", small) }
        FaultInjection.inject(operation, code: code, times: mode == "once" ? 1 : nil)
        if mode == "once" {
            attempt("during-0", large)
        } else {
            for i in 0..<3 { attempt("during-\(i)", large) }
            if (try? suite.get("before-0", as: Data.self)) == small { say("read-ok before-0") }
            FaultInjection.clear()
        }
        for i in 0..<3 { attempt("after-\(i)", large) }
        return 0
    }

    /// Limits its own address space to what it uses plus 48 MiB, so growing the 64 MiB map to 128 MiB
    /// fails for real (`mmap` returns ENOMEM), then writes 2 MiB values until one is refused, reads every
    /// acknowledged one back and writes a small value.
    static func growUntilRefused(_ args: [String]) throws -> Int32 {
        let suite = try Store(path: args[0]).suite("grow")
        let value = Data(repeating: 0x63, count: 2 << 20)
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmSize:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else {
            say("cannot read VmSize from /proc/self/status")
            return 1
        }
        var limit = rlimit(rlim_cur: rlim_t(kilobytes * 1024 + (48 << 20)), rlim_max: rlim_t(kilobytes * 1024 + (48 << 20)))
        guard setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0 else {
            say("setrlimit failed: \(String(cString: strerror(errno)))")
            return 1
        }
        say("address-space limit \(limit.rlim_cur >> 20) MiB")
        var acknowledged = 0
        while acknowledged < 1000 {
            do {
                try suite.set(value, forKey: "big-\(acknowledged)")
                say("ack big-\(acknowledged)")
                acknowledged += 1
            } catch {
                say("refused big-\(acknowledged) \(error)")
                break
            }
        }
        var intact = 0
        for i in 0..<acknowledged where (try? suite.get("big-\(i)", as: Data.self)) == value { intact += 1 }
        say("read-back \(intact) of \(acknowledged)")
        do {
            try suite.set("small", forKey: "small")
            say("ack small")
        } catch {
            say("refused small \(error)")
        }
        return 0
    }

    // MARK: - Stale writers and readers

    static func holdWrite(_ args: [String]) throws -> Int32 {
        let store = try Store(path: args[0])
        try store.write { writer in
            try writer.set(.string("never committed"), suite: args[1], key: args[2])
            say("in-write")
            sleep(1000)
        }
        return 0
    }

    static func writeMany(_ args: [String]) throws -> Int32 {
        let (dir, suiteName, keyCount, control) = (args[0], args[1], Int(args[2])!, args[3])
        let phases = args[4].split(separator: ",").map { Int($0)! }
        var options = Store.Options()
        options.durability = .none
        let store = try Store(path: dir, options: options)
        let suite = try store.suite(suiteName)
        func dataBytes() -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: dir + "/data.mdb"))?[.size] as? Int) ?? -1
        }
        say("ready \(dataBytes())")
        var written = 0
        for (phase, count) in phases.enumerated() {
            while access(control + "/go-\(phase)", F_OK) != 0 { usleep(5_000) }
            for i in 0..<count {
                try suite.set(written, forKey: "key-\(written % keyCount)")
                written += 1
                if (i + 1) % 10_000 == 0 || i + 1 == count { say("phase \(phase) writes \(i + 1) bytes \(dataBytes())") }
            }
        }
        return 0
    }

    static func observeAndList(_ args: [String]) throws -> Int32 {
        let store = try Store(path: args[0])
        let suite = try store.suite(args[1])
        let token = try store.changes().start { _ in say("keys \((try? suite.keys().count) ?? -1)") }
        say("ready")
        withExtendedLifetime(token) { sleep(600) }
        return 0
    }

    // MARK: - fork()

    static func forkAfterOpen(_ args: [String]) throws -> Int32 {
        let (dir, suiteName) = (args[0], args[1])
        let suite = try Store(path: dir).suite(suiteName)
        for i in 0..<10 { try suite.set(i, forKey: "parent-\(i)") }
        let pid = fork()
        guard pid >= 0 else {
            say("fork failed: \(String(cString: strerror(errno)))")
            return 1
        }
        if pid == 0 {
            var surprises: Int32 = 0
            do {
                try suite.set(-1, forKey: "child-inherited")
                say("child: inherited write succeeded")
                surprises |= 1
            } catch { say("child: inherited write refused: \(error)") }
            do {
                let value = try suite.get("parent-0", as: Int.self)
                say("child: inherited read succeeded: \(String(describing: value))")
                surprises |= 2
            } catch { say("child: inherited read refused: \(error)") }
            do {
                let fresh = try Store(path: dir).suite(suiteName)
                try fresh.set(42, forKey: "child-fresh")
                if try fresh.get("child-fresh", as: Int.self) != 42 || fresh.get("parent-9", as: Int.self) != 9 { surprises |= 8 }
                say("child: a store opened in the child works")
            } catch {
                say("child: a store opened in the child failed: \(error)")
                surprises |= 4
            }
            _exit(surprises)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if status & 0x7f == 0 { say("child-exit \((status >> 8) & 0xff)") } else { say("child-signal \(status & 0x7f)") }
        for i in 0..<10 { try suite.set(100 + i, forKey: "parent-after-\(i)") }
        say("parent done")
        return 0
    }

    // MARK: - Hostile values

    static func setNested(_ args: [String]) throws -> Int32 {
        let (dir, suiteName, kind, depth) = (args[0], args[1], args[2], Int(args[3])!)
        let store = try Store(path: dir)
        let suite = try store.suite(suiteName)
        var value = Value.int(1)
        for _ in 0..<depth { value = kind == "array" ? .array([value]) : .dictionary(["k": value]) }
        say("last-seq \(try store.lastSeq())")
        do {
            try suite.set(value, forKey: "nested")
            say("stored")
        } catch {
            say("refused \(error)")
        }
        say("last-seq \(try store.lastSeq())")
        // Releasing a value nested this deep is recursive in Swift; leave without releasing it.
        withExtendedLifetime(value) { exit(0) }
    }

    // MARK: - Fuzzing

    static func fuzz(_ args: [String]) throws -> Int32 {
        guard let target = FuzzTargets.named(args[0]) else {
            say("unknown fuzz target \(args[0])")
            return 2
        }
        var random = SeededRandom(seed: UInt64(args[1])!)
        let iterations = Int(args[2])!
        _ = FileManager.default.createFile(atPath: args[3], contents: nil)
        let current = try FileHandle(forWritingTo: URL(fileURLWithPath: args[3]))
        var seeds: [[UInt8]] = []
        for _ in 0..<64 { seeds.append(try target.seed(&random)) }
        var decoded = 0
        for i in 0..<iterations {
            let base = seeds[random.below(seeds.count)]
            let input = i % 16 == 0 ? base : FuzzMutator.mutate(base, other: seeds[random.below(seeds.count)], &random)
            try current.seek(toOffset: 0)
            try current.write(contentsOf: input)
            try current.truncate(atOffset: UInt64(input.count))
            do {
                try target.decode(input)
                decoded += 1
            } catch let failure as FuzzFailure {
                say("failure \(failure)")
                return 5
            } catch {}
        }
        say("fuzz \(target.name) iterations \(iterations) decoded \(decoded)")
        return 0
    }

    static func fuzzReplay(_ args: [String]) throws -> Int32 {
        guard let target = FuzzTargets.named(args[0]) else {
            say("unknown fuzz target \(args[0])")
            return 2
        }
        for file in args.dropFirst() {
            let input = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            do {
                try target.decode(input)
                say("\(file) decoded")
            } catch let failure as FuzzFailure {
                say("\(file) failure \(failure)")
                return 5
            } catch {
                say("\(file) rejected: \(String(describing: error).prefix(200))")
            }
        }
        return 0
    }
}
