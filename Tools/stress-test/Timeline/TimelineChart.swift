import ChartSVG
import Foundation

/// `stress-test --timeline FILE.svg`: operations per second of each kind over the run (one point per
/// bucket), with lanes beneath for syncs, kills and backups/restores, failures as red lines at their
/// moment, the stop and final sync round shaded, and the invariants' verdict at the end.
struct TimelineChart {
    let timeline: TimelineRecorder
    let summary: StressSummary
    let options: StressOptions

    private static let width = 1200.0
    private static let plotLeft = 150.0
    private static let plotRight = 1170.0
    private static let plotTop = 104.0
    private static let plotHeight = 300.0
    private static let laneHeight = 26.0

    static let colors: [OperationKind: String] = [
        .set: "#1f66b4", .delete: "#e8710a", .incr: "#2e9c48", .claim: "#8e4fbf", .reset: "#8c564b"
    ]
    private static let failColor = "#d12a2a"
    private static let okColor = "#14853b"

    private struct Lane {
        let title: String
        let kinds: [TimelineRecorder.Event.Kind]
    }

    private static let lanes = [
        Lane(title: "syncs", kinds: [.syncDone, .syncFailed]),
        Lane(title: "kills (SIGKILL)", kinds: [.workerKilled, .syncKilled, .serveKilled]),
        Lane(title: "backups, restores", kinds: [.backup, .restoreFound, .restoreUnchanged, .restoreMissed]),
        Lane(title: "failures", kinds: [.syncFailed, .restoreMissed, .workerFailed, .failure, .invariant])
    ]

    func svg() -> SVGDocument {
        var doc = SVGDocument(width: Self.width, height: 800)
        let stop = timeline.stopSeconds ?? summary.seconds
        let end = max(timeline.endSeconds ?? stop, stop, timeline.bucketSeconds)
        let x = ChartScale(low: 0, high: end, start: Self.plotLeft, end: Self.plotRight, logarithmic: false)
        let rates = series(until: stop)
        let peak = rates.values.flatMap { $0 }.max() ?? 0
        let yStep = ChartScale.niceStep(max(peak, 1) * 1.1 / 5)
        let yHigh = max((max(peak, 1) * 1.1 / yStep).rounded(.up) * yStep, yStep)
        let plotBottom = Self.plotTop + Self.plotHeight
        let y = ChartScale(low: 0, high: yHigh, start: plotBottom, end: Self.plotTop, logarithmic: false)
        let lanesBottom = plotBottom + 8 + Double(Self.lanes.count) * Self.laneHeight

        heading(&doc)
        legend(&doc)
        // The stop, final sync round and checks, shaded behind everything.
        doc.rect(x: x.position(stop), y: Self.plotTop, width: x.position(end) - x.position(stop), height: lanesBottom - Self.plotTop, fill: "#f1f1f1")
        // The label inside the shaded stretch when it fits, else just before it.
        let fits = x.position(end) - x.position(stop) >= TextWidth.of("stop, final sync", size: 10.5) + 8
        let labelX = fits ? x.position(stop) + 4 : x.position(stop) - 4
        doc.text("stop, final sync", x: labelX, y: Self.plotTop + 14, size: 10.5, anchor: fits ? .start : .end, fill: "#555")
        doc.text("round, checks", x: labelX, y: Self.plotTop + 27, size: 10.5, anchor: fits ? .start : .end, fill: "#555")
        // Grid and axes.
        for t in x.ticks(count: 12) {
            doc.line(x1: x.position(t), y1: Self.plotTop, x2: x.position(t), y2: lanesBottom, stroke: "#e6e6e6")
            doc.text(
                String(format: yStep >= 1 && t == t.rounded() ? "%.0f" : "%.1f", t), x: x.position(t), y: lanesBottom + 15, size: 11, anchor: .middle,
                fill: "#444")
        }
        doc.text("seconds since the workers started", x: (Self.plotLeft + Self.plotRight) / 2, y: lanesBottom + 32, size: 12, anchor: .middle, bold: true)
        let key =
            "syncs: a tick per sync that finished · kills: red a worker, orange a sync, brown a far serve · "
            + "backups ○, restores ▲ · failures: red ▲ and a red line at the moment"
        doc.text(TextWidth.fit(key, size: 11.5, width: Self.width - 36), x: 18, y: lanesBottom + 52, size: 11.5, fill: "#444")
        for t in y.ticks(count: 6) {
            doc.line(x1: Self.plotLeft, y1: y.position(t), x2: Self.plotRight, y2: y.position(t), stroke: t == 0 ? "#888" : "#e6e6e6")
            doc.text(grouped(t), x: Self.plotLeft - 6, y: y.position(t) + 4, size: 11, anchor: .end, fill: "#444")
        }
        doc.text("operations per second", x: 24, y: (Self.plotTop + plotBottom) / 2, size: 12, anchor: .middle, bold: true, rotate: -90)
        doc.text(
            String(format: "acknowledged operations per second, each kind, in buckets of %.0f ms", timeline.bucketSeconds * 1000), x: Self.plotLeft,
            y: Self.plotTop - 8, size: 12, fill: "#333")
        // Kills and restores run faintly through the plot, failures strongly.
        for event in timeline.events {
            let px = x.position(event.seconds)
            switch event.kind {
            case .workerKilled, .syncKilled, .serveKilled:
                doc.line(x1: px, y1: Self.plotTop, x2: px, y2: plotBottom, stroke: "#f2b8b8")
            case .restoreFound, .restoreUnchanged:
                doc.line(x1: px, y1: Self.plotTop, x2: px, y2: plotBottom, stroke: "#b99ad6", width: 1.5, dash: "4 3")
            default: break
            }
        }
        // The series.
        for kind in TimelineRecorder.kinds {
            guard let values = rates[kind], values.contains(where: { $0 > 0 }) else { continue }
            let points = values.enumerated().map { (x: x.position((Double($0.offset) + 0.5) * timeline.bucketSeconds), y: y.position($0.element)) }
            doc.polyline(points, stroke: Self.colors[kind]!, width: 1.6)
        }
        lanes(&doc, x: x, top: plotBottom + 8)
        for event in timeline.events where event.kind.isFailure {
            let px = x.position(event.seconds)
            doc.line(x1: px, y1: Self.plotTop, x2: px, y2: lanesBottom, stroke: Self.failColor, width: 2)
        }
        let bottom = verdict(&doc, y: lanesBottom + 66)
        doc.resize(height: bottom + 14)
        return doc
    }

    /// Operations per second of each kind, one value per bucket up to the stop. The bucket the stop
    /// falls in was only partly worked: its rate is over that part, and it is left out when the part is
    /// under half a bucket (too short a time to give a rate).
    private func series(until stop: Double) -> [OperationKind: [Double]] {
        let whole = Int(stop / timeline.bucketSeconds)
        let partial = stop - Double(whole) * timeline.bucketSeconds
        let count = min(timeline.buckets.count, partial >= timeline.bucketSeconds / 2 ? whole + 1 : whole)
        var out: [OperationKind: [Double]] = [:]
        for kind in TimelineRecorder.kinds {
            out[kind] = timeline.buckets.prefix(count).enumerated().map { bucket in
                (bucket.element[kind] ?? 0) / (bucket.offset == whole ? partial : timeline.bucketSeconds)
            }
        }
        return out
    }

    private func totals() -> [OperationKind: Double] {
        var out: [OperationKind: Double] = [:]
        for bucket in timeline.buckets { for (kind, n) in bucket { out[kind, default: 0] += n } }
        return out
    }

    private func heading(_ doc: inout SVGDocument) {
        doc.text("stress-test timeline: operations per second, with kills, restores and syncs", x: 18, y: 28, size: 18, bold: true)
        var world = "seed \(summary.seed) · \(summary.replicas) replicas · \(summary.processes) worker processes · "
        world += String(format: "%.1f s of work · kill rate %g/s · restore rate %g/s", summary.seconds, options.killRate, options.restoreRate)
        world += options.hub ? " · through a PostgreSQL hub" : (options.transport == "ssh" ? " · second replica over ssh" : " · syncs between directories")
        world += " · \(summary.kills) kills, \(summary.syncs) syncs, \(summary.restores.restores) restores"
        doc.text(TextWidth.fit(world, size: 12, width: Self.width - 36), x: 18, y: 47, size: 12, fill: "#555")
    }

    private func legend(_ doc: inout SVGDocument) {
        let totals = totals()
        var x = 18.0
        let y = 66.0
        for kind in TimelineRecorder.kinds {
            let label = "\(kind.rawValue) (\(grouped((totals[kind] ?? 0).rounded())))"
            doc.line(x1: x, y1: y + 6, x2: x + 22, y2: y + 6, stroke: Self.colors[kind]!, width: 3)
            doc.text(label, x: x + 28, y: y + 10, size: 12)
            x += 28 + TextWidth.of(label, size: 12) + 18
        }
        doc.line(x1: x, y1: y - 2, x2: x, y2: y + 12, stroke: "#f2b8b8", width: 2)
        doc.text("a kill", x: x + 8, y: y + 10, size: 12)
        x += 8 + TextWidth.of("a kill", size: 12) + 18
        doc.line(x1: x, y1: y - 2, x2: x, y2: y + 12, stroke: "#b99ad6", width: 2, dash: "4 3")
        doc.text("a restore from a backup", x: x + 8, y: y + 10, size: 12)
        x += 8 + TextWidth.of("a restore from a backup", size: 12) + 18
        doc.line(x1: x, y1: y - 2, x2: x, y2: y + 12, stroke: Self.failColor, width: 2)
        doc.text("a failure", x: x + 8, y: y + 10, size: 12)
    }

    /// One lane per kind of event: a tick (or marker) at each event's moment.
    private func lanes(_ doc: inout SVGDocument, x: ChartScale, top: Double) {
        for (i, lane) in Self.lanes.enumerated() {
            let y = top + Double(i) * Self.laneHeight
            let mid = y + Self.laneHeight / 2
            if i % 2 == 0 { doc.rect(x: Self.plotLeft, y: y, width: Self.plotRight - Self.plotLeft, height: Self.laneHeight, fill: "#000000", opacity: 0.03) }
            let events = timeline.events.filter { lane.kinds.contains($0.kind) }
            doc.text("\(lane.title) (\(events.count))", x: Self.plotLeft - 6, y: mid + 4, size: 11.5, anchor: .end)
            for event in events {
                let px = x.position(event.seconds)
                let tip = String(format: "%.2f s: ", event.seconds) + event.kind.rawValue + (event.detail.isEmpty ? "" : ": " + event.detail)
                switch event.kind {
                case .syncDone:
                    doc.line(x1: px, y1: y + 6, x2: px, y2: y + Self.laneHeight - 6, stroke: "#4a7fc1")
                case .workerKilled:
                    doc.line(x1: px, y1: y + 4, x2: px, y2: y + Self.laneHeight - 4, stroke: "#d12a2a", width: 2)
                case .syncKilled:
                    doc.line(x1: px, y1: y + 4, x2: px, y2: y + Self.laneHeight - 4, stroke: "#e8710a", width: 2)
                case .serveKilled:
                    doc.line(x1: px, y1: y + 4, x2: px, y2: y + Self.laneHeight - 4, stroke: "#8c564b", width: 2)
                case .backup:
                    doc.circle(cx: px, cy: mid, r: 4.5, fill: "#ffffff", stroke: "#8e4fbf", tooltip: tip)
                case .restoreFound, .restoreUnchanged:
                    doc.polygon([(px, mid - 6), (px + 6, mid + 5), (px - 6, mid + 5)], fill: "#8e4fbf", tooltip: tip)
                case .restoreMissed, .syncFailed, .workerFailed, .failure, .invariant:
                    doc.polygon([(px, mid - 7), (px + 7, mid + 6), (px - 7, mid + 6)], fill: Self.failColor, tooltip: tip)
                }
            }
        }
    }

    /// The invariants after the final sync round, and every failure with its moment.
    private func verdict(_ doc: inout SVGDocument, y: Double) -> Double {
        var y = y
        let checks = summary.checks
        let head =
            summary.ok
            ? "OK: every invariant held (\(grouped(Double(checks.acknowledged))) acknowledged operations checked after the final sync round)"
            : "FAILED: an invariant did not hold (\(grouped(Double(checks.acknowledged))) acknowledged operations checked after the final sync round)"
        doc.rect(x: 14, y: y, width: Self.width - 28, height: 26, fill: summary.ok ? "#e6f4ea" : "#fbe4e4")
        doc.text(head, x: 24, y: y + 18, size: 14, bold: true, fill: summary.ok ? Self.okColor : Self.failColor)
        y += 34
        var items: [(String, Int)] = [
            ("lost writes", checks.lostWrites), ("diverged keys", checks.divergedKeys), ("double-counted increments", checks.doubleCounted),
            ("exclusive-choice violations", checks.exclusiveViolations), ("replicas failing check", checks.damagedReplicas),
            ("inconsistent conflict-log entries", checks.inconsistentConflicts), ("failed syncs", summary.syncFailures.count)
        ]
        if summary.restores.restores > 0 || summary.restores.backupsTaken > 0 {
            items.append(("restores the first sync did not find", summary.restores.undetected.count))
        }
        let columnWidth = (Self.width - 48) / 3
        for (i, item) in items.enumerated() {
            let cx = 24 + Double(i % 3) * columnWidth
            let cy = y + Double(i / 3) * 18
            doc.text(item.1 == 0 ? "ok" : "FAIL", x: cx, y: cy + 12, size: 12, bold: true, fill: item.1 == 0 ? Self.okColor : Self.failColor)
            doc.text("\(item.0): \(item.1)", x: cx + 38, y: cy + 12, size: 12, bold: item.1 != 0, fill: item.1 == 0 ? "#333" : Self.failColor)
        }
        y += Double((items.count + 2) / 3) * 18 + 4
        doc.text(
            "global counter: \(checks.globalCounter) in every replica for \(checks.globalIncrements) acknowledged increments; \(checks.conflicts) conflicts logged",
            x: 24, y: y + 12, size: 12, fill: "#333")
        y += 20
        let failures = timeline.events.filter { $0.kind.isFailure }.sorted { $0.seconds < $1.seconds }
        if !failures.isEmpty {
            doc.text(
                "Where it failed (a lost write or doubly held choice at its version's time, when it was written):", x: 24, y: y + 13, size: 13,
                bold: true, fill: Self.failColor)
            y += 20
            for event in failures.prefix(12) {
                let text = String(format: "%.2f s — ", event.seconds) + event.kind.rawValue + (event.detail.isEmpty ? "" : ": " + event.detail)
                doc.text(TextWidth.fit(text, size: 11.5, width: Self.width - 60), x: 32, y: y + 12, size: 11.5, fill: Self.failColor)
                y += 17
            }
            if failures.count > 12 {
                doc.text("… and \(failures.count - 12) more", x: 32, y: y + 12, size: 11.5, fill: Self.failColor)
                y += 17
            }
        }
        for detail in checks.details.prefix(8) {
            doc.text(TextWidth.fit(detail, size: 11.5, width: Self.width - 60), x: 32, y: y + 12, size: 11.5, fill: Self.failColor)
            y += 17
        }
        return y
    }

    private func grouped(_ value: Double) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.maximumFractionDigits = value == value.rounded() ? 0 : 1
        return formatter.string(from: NSNumber(value: value)) ?? String(value)
    }
}
