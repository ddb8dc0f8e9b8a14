package org.fts.goa.intake;

import java.util.Map;
import java.util.TreeMap;

/**
 * A replica's load and placement as it stands (docs/placement.md): its mode ({@code fts.placement}), the
 * connections it serves and those it forwarded, its requests in flight, its CPU and fixed costs in permille of a
 * core, whether it serves, how many replicas its whiteboard shows serving, the connections its whiteboard shows for
 * each replica's endpoint, and the extra work (in connections) it learned each one has. {@link GroupPOA#load()};
 * over JMX as the replica's attributes ({@link ReplicaMXBean}: {@code Placement}, {@code Connections}, …, and the
 * {@link #format} line as {@code Load}).
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
     * fixed_permille=20 serving_replicas=3 board=host:port=3,...} and, with extra work, {@code extra=host:port=2,...}.
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

    private static String list(Map<String, Long> m) {
        return String.join(",", new TreeMap<>(m).entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .toList());
    }
}
