package org.fts.goa;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A replica's load and placement as it stands (docs/placement.md): its mode ({@code fts.placement}), the
 * connections it serves and those it forwarded, its requests in flight, its CPU and fixed costs in permille of a
 * core, whether it serves, how many replicas its whiteboard shows serving, the connections its whiteboard shows for
 * each replica's endpoint, and the extra work (in connections) it learned each one has. {@link GroupPOA#load()};
 * over JMX as the replica's {@code Load} attribute, in the {@link #format} line.
 */
public record PlacementFigures(String mode, int connections, long forwarded, long inFlight, long cpuPermille,
                               boolean serving, long fixedPermille, int servingReplicas, Map<String, Long> board,
                               Map<String, Long> extra) {
    public PlacementFigures {
        board = Map.copyOf(board);
        extra = Map.copyOf(extra);
    }

    /** The connections the whiteboard shows, over every replica. */
    public long boardConnections() {
        return board.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * One line: {@code placement=load connections=3 forwarded=6 in_flight=0 cpu_permille=410 serving=1
     * fixed_permille=20 serving_replicas=3 board=host:port=3,...} and, with extra work, {@code extra=host:port=2,...};
     * see {@link #parse}.
     */
    public String format() {
        return "placement=" + mode + " connections=" + connections + " forwarded=" + forwarded + " in_flight="
                + inFlight + " cpu_permille=" + cpuPermille + " serving=" + (serving ? 1 : 0) + " fixed_permille="
                + fixedPermille + " serving_replicas=" + servingReplicas + " board=" + list(board)
                + (extra.isEmpty() ? "" : " extra=" + list(extra));
    }

    @Override
    public String toString() {
        return format();
    }

    /** The figures {@link #format} wrote (the test kit's harness replicas answer with that line). */
    public static PlacementFigures parse(String text) {
        Map<String, String> f = new LinkedHashMap<>();
        for (String kv : text.trim().split("\\s+")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                f.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        try {
            return new PlacementFigures(java.util.Objects.requireNonNull(f.get("placement")), Integer.parseInt(f.get("connections")),
                    Long.parseLong(f.get("forwarded")), Long.parseLong(f.get("in_flight")),
                    Long.parseLong(f.get("cpu_permille")), "1".equals(f.get("serving")),
                    Long.parseLong(f.get("fixed_permille")), Integer.parseInt(f.get("serving_replicas")),
                    map(f.getOrDefault("board", "")), map(f.getOrDefault("extra", "")));
        } catch (NullPointerException | NumberFormatException e) {
            throw new IllegalArgumentException("not placement figures: " + text, e);
        }
    }

    private static String list(Map<String, Long> m) {
        return String.join(",", new TreeMap<>(m).entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .toList());
    }

    private static Map<String, Long> map(String list) {
        Map<String, Long> out = new TreeMap<>();
        for (String e : list.split(",")) {
            int eq = e.lastIndexOf('=');
            if (eq > 0) {
                out.put(e.substring(0, eq), Long.parseLong(e.substring(eq + 1)));
            }
        }
        return out;
    }
}
