import Dispatch
import Synchronization

/// A serial dispatch queue made on first use, so a store nobody observes never creates one
/// (a process's first queue initializes libdispatch: tens of microseconds of a cold open).
final class DeliveryQueue: Sendable {
    private let label: String
    private let made = Mutex<DispatchQueue?>(nil)

    init(label: String) { self.label = label }

    /// Runs `work` on the queue, after everything submitted before it.
    func async(execute work: @escaping @Sendable () -> Void) {
        let queue = made.withLock { made -> DispatchQueue in
            if let queue = made { return queue }
            let queue = DispatchQueue(label: label)
            made = queue
            return queue
        }
        queue.async(execute: work)
    }
}
