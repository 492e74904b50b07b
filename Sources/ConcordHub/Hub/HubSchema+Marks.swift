extension HubSchema {
    /// Version 4: history marks. Every push that hands out seqs writes a new mark of the account's
    /// history (`accounts.mark`, and a row of `marks`); a device binds its cursor on the hub to the mark
    /// of its pull, and the hub's cursor on a device (`devices.pushed`) is bound to the device's mark of
    /// its push, so a hub restored from a dump (or failed over to a standby that missed commits) and a
    /// device restored from a backup are each found by the first sync that meets them.
    ///
    /// - `accounts.mark`, `marks_pruned`: the account's newest mark, and the seq below which its marks
    ///   were pruned (a claim bound to a pruned mark cannot be proven: a resync, not a rollback).
    /// - `marks`: (account, mark, seq), a bounded number per account; not partitioned (a few rows per
    ///   account) and not counted against the account's quota.
    /// - `devices.mark`, `mark_seq`: the device's mark that `pushed` is bound to; `echo_safe`, `since`:
    ///   whether the hub may leave the device's own pushes out of its pulls; `hub_mark`: the hub's mark
    ///   the device holds; `found_restored`: a reset the device has not finished.
    ///
    /// Existing accounts get a mark covering what they hold; existing device rows stay unbound (nothing
    /// proves them), so each device resends everything once. A client of schema 3 is refused
    /// (`newerSchema`): it would skip what a restored hub hands out again.
    static let marksMigration: [String] = [
        """
        ALTER TABLE concord_hub.accounts
          ADD COLUMN mark bytea CHECK (mark IS NULL OR length(mark) = 16),
          ADD COLUMN marks_pruned bigint NOT NULL DEFAULT 0
        """,
        """
        CREATE TABLE concord_hub.marks (
          account text NOT NULL REFERENCES concord_hub.accounts (name) ON DELETE CASCADE,
          mark bytea NOT NULL CHECK (length(mark) = 16),
          seq bigint NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (account, mark))
        """,
        "CREATE INDEX marks_by_seq ON concord_hub.marks (account, seq)",
        "UPDATE concord_hub.accounts SET mark = uuid_send(gen_random_uuid())",
        "INSERT INTO concord_hub.marks (account, mark, seq) SELECT name, mark, last_seq FROM concord_hub.accounts",
        """
        ALTER TABLE concord_hub.devices
          ADD COLUMN mark bytea CHECK (mark IS NULL OR length(mark) = 16),
          ADD COLUMN mark_seq bigint,
          ADD COLUMN echo_safe boolean NOT NULL DEFAULT false,
          ADD COLUMN since bigint NOT NULL DEFAULT 0,
          ADD COLUMN hub_mark bytea CHECK (hub_mark IS NULL OR length(hub_mark) = 16),
          ADD COLUMN found_restored boolean NOT NULL DEFAULT false,
          ADD CONSTRAINT mark_covers_pushed CHECK (mark IS NULL OR mark_seq >= pushed)
        """,
        // What devices pushed before marks existed is not proven to be theirs still: it is left out of
        // their pulls only once they prove they merged the hub's history through here.
        "UPDATE concord_hub.devices d SET since = a.last_seq FROM concord_hub.accounts a WHERE a.name = d.account",
        "ALTER TABLE concord_hub.marks ENABLE ROW LEVEL SECURITY",
        "CREATE POLICY own_marks ON concord_hub.marks USING (account = current_user) WITH CHECK (account = current_user)",
        "GRANT SELECT, INSERT, DELETE ON concord_hub.marks TO concord_hub_device",
        "GRANT UPDATE (mark, marks_pruned) ON concord_hub.accounts TO concord_hub_device"
    ]
}
