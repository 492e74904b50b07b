extension HubSchema {
    /// The hub's defaults for a new account's limits (`hub init --max-keys/--max-bytes` changes them).
    static let defaultMaxKeys: Int64 = 100_000
    static let defaultMaxBytes: Int64 = 64 << 20

    /// Version 3: what an account owns besides its rows — limits the database enforces, a secret
    /// NOTIFY channel, an optional label.
    ///
    /// - `accounts.channel`: `concord_` and 32 random hex digits, readable only through the account's
    ///   own row (row-level security), never printed; pushes NOTIFY it and live devices LISTEN on it.
    /// - `accounts.label`: what the operator calls an account whose role name is opaque.
    /// - `accounts.max_keys`, `max_bytes` (NULL: no limit) and `keys_used`, `bytes_used`: live keys (rows
    ///   with a value) and bytes (each row's suite, key and value; each device row's id and scope).
    ///   Statement-level triggers on `records` and `devices` (security definer: a device role cannot
    ///   write the counters itself) add up every statement's change per account under the account
    ///   row's lock and refuse (SQLSTATE CQ001) a statement that grows a use past its limit, so the
    ///   whole transaction — a push — is refused, whoever sends it. A statement that shrinks a use is
    ///   always accepted (an account over a lowered limit can delete its way back under it).
    /// - `meta.default_max_keys`, `default_max_bytes`: the limits `add-account` gives a new account;
    ///   accounts that exist when a hub is upgraded get them too.
    static let accountsMigration: [String] =
        [
            """
            ALTER TABLE concord_hub.meta
              ADD COLUMN default_max_keys bigint DEFAULT \(defaultMaxKeys) CHECK (default_max_keys >= 0),
              ADD COLUMN default_max_bytes bigint DEFAULT \(defaultMaxBytes) CHECK (default_max_bytes >= 0)
            """,
            """
            ALTER TABLE concord_hub.accounts
              ADD COLUMN channel text NOT NULL UNIQUE DEFAULT ('concord_' || replace(gen_random_uuid()::text, '-', '')),
              ADD COLUMN label text CHECK (length(label) <= 200),
              ADD COLUMN max_keys bigint CHECK (max_keys >= 0),
              ADD COLUMN max_bytes bigint CHECK (max_bytes >= 0),
              ADD COLUMN keys_used bigint NOT NULL DEFAULT 0,
              ADD COLUMN bytes_used bigint NOT NULL DEFAULT 0
            """,
            """
            UPDATE concord_hub.accounts a SET max_keys = \(defaultMaxKeys), max_bytes = \(defaultMaxBytes),
              keys_used = (SELECT count(*) FROM concord_hub.records r WHERE r.account = a.name AND r.value IS NOT NULL),
              bytes_used = (SELECT coalesce(sum(\(recordBytes("r"))), 0) FROM concord_hub.records r WHERE r.account = a.name)
                         + (SELECT coalesce(sum(\(deviceBytes("d"))), 0) FROM concord_hub.devices d WHERE d.account = a.name)
            """,
            useFunction(name: "count_record_use", keys: "count(*) FILTER (WHERE %.value IS NOT NULL)", bytes: recordBytes("%")),
            useFunction(name: "count_device_use", keys: "0", bytes: deviceBytes("%")),
            "REVOKE EXECUTE ON FUNCTION concord_hub.count_record_use(), concord_hub.count_device_use() FROM PUBLIC"
        ] + ["records", "devices"].flatMap(useTriggers)

    /// The function counting the keys and bytes of `records` as schema 6 has it: a sealed tombstone,
    /// which holds bytes, is no key.
    static var recordUseFunction: String {
        useFunction(name: "count_record_use", keys: "count(*) FILTER (WHERE NOT \(isTombstone("%")))", bytes: recordBytes("%"))
    }

    /// What a row of `records` counts against `max_bytes` (`alias` names the row).
    static func recordBytes(_ alias: String) -> String {
        "octet_length(\(alias).suite) + octet_length(\(alias).key) + coalesce(octet_length(\(alias).value), 0)"
    }

    /// What a row of `devices` counts against `max_bytes`.
    static func deviceBytes(_ alias: String) -> String { "octet_length(\(alias).device) + octet_length(\(alias).scope)" }

    /// A trigger function adding up one statement's change of keys and bytes per account from its
    /// transition tables (`new_rows`, `old_rows`), and refusing a growth past a limit.
    private static func useFunction(name: String, keys: String, bytes: String) -> String {
        func delta(_ table: String, _ sign: String) -> String {
            let k = keys.replacingOccurrences(of: "%", with: "t")
            let b = bytes.replacingOccurrences(of: "%", with: "t")
            return "SELECT t.account, \(sign)(\(k))::bigint AS keys, \(sign)(sum(\(b)))::bigint AS bytes FROM \(table) t GROUP BY t.account"
        }
        return """
            CREATE OR REPLACE FUNCTION concord_hub.\(name)() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
            SET search_path = pg_catalog, pg_temp AS $$
            DECLARE
              names text[];
              keys bigint[];
              bytes bigint[];
              u record;
            BEGIN
              IF TG_OP = 'INSERT' THEN
                SELECT array_agg(d.account), array_agg(d.keys), array_agg(d.bytes) INTO names, keys, bytes FROM (\(delta("new_rows", "+"))) d;
              ELSIF TG_OP = 'DELETE' THEN
                SELECT array_agg(d.account), array_agg(d.keys), array_agg(d.bytes) INTO names, keys, bytes FROM (\(delta("old_rows", "-"))) d;
              ELSE
                SELECT array_agg(d.account), array_agg(d.keys), array_agg(d.bytes) INTO names, keys, bytes FROM (
                  SELECT c.account, sum(c.keys)::bigint AS keys, sum(c.bytes)::bigint AS bytes
                  FROM (\(delta("new_rows", "+")) UNION ALL \(delta("old_rows", "-"))) c GROUP BY c.account) d;
              END IF;
              FOR i IN 1 .. coalesce(array_length(names, 1), 0) LOOP
                CONTINUE WHEN keys[i] = 0 AND bytes[i] = 0;
                UPDATE concord_hub.accounts SET keys_used = keys_used + keys[i], bytes_used = bytes_used + bytes[i]
                  WHERE name = names[i] RETURNING keys_used, bytes_used, max_keys, max_bytes INTO u;
                IF (keys[i] > 0 AND u.keys_used > u.max_keys) OR (bytes[i] > 0 AND u.bytes_used > u.max_bytes) THEN
                  RAISE EXCEPTION USING ERRCODE = 'CQ001',
                    MESSAGE = format('account %s is over its quota: the change needs %s keys (at most %s) and %s bytes (at most %s)',
                      names[i], u.keys_used, coalesce(u.max_keys::text, 'any'), u.bytes_used, coalesce(u.max_bytes::text, 'any')),
                    DETAIL = format('account=%s keys=%s max_keys=%s bytes=%s max_bytes=%s', names[i],
                      u.keys_used, coalesce(u.max_keys, -1), u.bytes_used, coalesce(u.max_bytes, -1));
                END IF;
              END LOOP;
              RETURN NULL;
            END $$
            """
    }

    /// The three statement-level triggers of `table` (transition tables allow one event each).
    private static func useTriggers(_ table: String) -> [String] {
        let function = table == "records" ? "count_record_use" : "count_device_use"
        return [
            ("INSERT", "NEW TABLE AS new_rows"), ("UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows"), ("DELETE", "OLD TABLE AS old_rows")
        ].map { event, tables in
            """
            CREATE TRIGGER count_use_\(event.lowercased()) AFTER \(event) ON concord_hub.\(table) REFERENCING \(tables)
            FOR EACH STATEMENT EXECUTE FUNCTION concord_hub.\(function)()
            """
        }
    }
}
