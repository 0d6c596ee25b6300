import CairnExport

/// A JSON object for the `--json` outputs, its fields in the order added: strings escaped,
/// numbers as given, nil as null, objects and arrays nested as their own text.
struct JSONObject {
    private var fields: [(String, String)] = []

    mutating func add(_ key: String, _ value: String?) { fields.append((key, value.map(TextFormat.jsonString) ?? "null")) }
    mutating func add(_ key: String, _ value: Int?) { fields.append((key, value.map { String($0) } ?? "null")) }
    mutating func add(_ key: String, _ value: Int64?) { fields.append((key, value.map { String($0) } ?? "null")) }
    mutating func add(_ key: String, _ value: Bool) { fields.append((key, value ? "true" : "false")) }
    /// A number given as text ("12.5"): null unless it is a plain decimal number.
    mutating func add(_ key: String, number text: String?) {
        fields.append((key, text.flatMap { StrictNumber.decimal($0) != nil ? $0 : nil } ?? "null"))
    }
    /// JSON text made elsewhere (an object or an array).
    mutating func add(_ key: String, json text: String) { fields.append((key, text)) }

    /// `{"a": 1, ...}` on one line.
    var text: String { "{" + fields.map { TextFormat.jsonString($0.0) + ": " + $0.1 }.joined(separator: ", ") + "}" }

    /// `[..., ...]` of texts made elsewhere.
    static func array(_ items: [String]) -> String { "[" + items.joined(separator: ", ") + "]" }
}

extension DeliveryStatus {
    /// The delivery as `status --json` and `deliver --json` give it (Sources/cairn/README.md).
    var json: JSONObject {
        var o = JSONObject()
        o.add("result", result.rawValue)
        o.add("at", atMs > 0 ? TextFormat.isoTime(ms: atMs) : nil)
        o.add("remote", remote)
        o.add("board_folder", boardFolder.isEmpty ? nil : boardFolder)
        o.add("delivered", delivered)
        o.add("remade", remade)
        o.add("waiting", waiting)
        o.add("failures", failures)
        o.add("failing_since", failingSinceMs.map { TextFormat.isoTime(ms: $0) })
        o.add("reason", reason.isEmpty ? nil : reason)
        o.add("page_pending", pagePending)
        // Copies of pruned trips found damaged on the remote: often a ride's only copy, so a
        // script reading the JSON learns of it as a rider reading `status` does.
        o.add("damaged_there", json: JSONObject.array(damagedThere.map(TextFormat.jsonString)))
        return o
    }
}

extension DeliveryStatus {
    init(result: Result) {
        self.init()
        self.result = result
    }
}
