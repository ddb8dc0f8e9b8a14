package org.fts.batching;

import java.time.Duration;
import java.util.List;
import java.util.Properties;

import org.fts.config.ConfigKey;

/** The batching keys: the policy by alias, its parameters, and the optional bounds of the hybrids. */
public final class BatchingConfig {
    public static final ConfigKey<String> POLICY = ConfigKey.choice("fts.batching", "natural",
            List.of("nb", "cb", "tb", "ab", "tab", "atab", "pack", "natural"),
            "batching policy: nb none, cb count, tb time window, ab adaptive doorway, tab timed adaptive, atab tab "
                    + "that sends a lone request at once, pack adaptive packing degree, natural (send while fewer "
                    + "than K batches are in flight)");
    public static final ConfigKey<String> DOORWAY = ConfigKey.choice("fts.batching.doorway", "long",
            List.of("short", "long"), "where a request enters the doorway: long = when it arrives, short = at its cast");
    public static final ConfigKey<Integer> CB_COUNT = ConfigKey.integer("fts.batching.cb.count", 10, 1, 100_000,
            "messages", "cb: messages per batch");
    public static final ConfigKey<Duration> CB_BACKUP = ConfigKey.duration("fts.batching.cb.backup",
            Duration.ofMillis(5), Duration.ofNanos(1), Duration.ofMinutes(1), "cb: a partial batch goes this long after its first message");
    public static final ConfigKey<Duration> TB_WINDOW = ConfigKey.duration("fts.batching.tb.window",
            Duration.ofMillis(1), Duration.ofNanos(1000), Duration.ofMinutes(1), "tb: the window");
    public static final ConfigKey<Duration> TAB_DOORWAY = ConfigKey.duration("fts.batching.tab.doorway",
            Duration.ofNanos(250_000), Duration.ZERO, Duration.ofMinutes(1),
            "tab, atab: a batch goes once no new message came for this long");
    public static final ConfigKey<Integer> PACK_MAX = ConfigKey.integer("fts.batching.pack.max", 100, 1, 100_000,
            "messages", "pack: the largest packing degree");
    public static final ConfigKey<Duration> PACK_INTERVAL = ConfigKey.duration("fts.batching.pack.interval",
            Duration.ofMillis(5), Duration.ofNanos(1000), Duration.ofMinutes(1),
            "pack: the packing interval, after which a partial batch goes anyway");
    public static final ConfigKey<Duration> PACK_PERIOD = ConfigKey.duration("fts.batching.pack.period",
            Duration.ofSeconds(1), Duration.ofMillis(10), Duration.ofMinutes(10),
            "pack: how often throughput is measured and the degree moved by one");
    public static final ConfigKey<Integer> NATURAL_IN_FLIGHT = ConfigKey.integer("fts.batching.natural.max_in_flight",
            1, 1, 1000, "batches", "natural: this member's batches in flight at most");
    public static final ConfigKey<Duration> MAX_DELAY = ConfigKey.duration("fts.batching.max_delay", Duration.ZERO,
            Duration.ZERO, Duration.ofMinutes(1), "hybrid bound on any policy: a batch goes at the latest this long after its first message (0: none)");
    public static final ConfigKey<Integer> MAX_COUNT = ConfigKey.integer("fts.batching.max_count", 0, 0, 1_000_000,
            "messages", "hybrid bound on any policy: a batch goes at the latest with this many messages (0: none)");

    public static final List<ConfigKey<?>> KEYS = List.of(POLICY, DOORWAY, CB_COUNT, CB_BACKUP, TB_WINDOW,
            TAB_DOORWAY, PACK_MAX, PACK_INTERVAL, PACK_PERIOD, NATURAL_IN_FLIGHT, MAX_DELAY, MAX_COUNT);

    private BatchingConfig() {
    }

    /** The configured policy, bounded if {@code fts.batching.max_delay} or {@code max_count} is set. */
    public static BatchPolicy policy(Properties p) {
        BatchPolicy base = switch (POLICY.get(p)) {
            case "nb" -> BatchPolicies.none();
            case "cb" -> BatchPolicies.count(CB_COUNT.get(p), CB_BACKUP.get(p));
            case "tb" -> BatchPolicies.time(TB_WINDOW.get(p));
            case "ab" -> BatchPolicies.adaptive(DOORWAY.get(p));
            case "tab" -> BatchPolicies.timedAdaptive(TAB_DOORWAY.get(p));
            case "atab" -> BatchPolicies.aloneAwareTimedAdaptive(TAB_DOORWAY.get(p));
            case "pack" -> BatchPolicies.packing(PACK_MAX.get(p), PACK_INTERVAL.get(p), PACK_PERIOD.get(p));
            case "natural" -> BatchPolicies.natural(NATURAL_IN_FLIGHT.get(p));
            default -> throw new IllegalStateException("unreachable: validated alias");
        };
        Duration maxDelay = MAX_DELAY.get(p);
        int maxCount = MAX_COUNT.get(p);
        return maxDelay.isZero() && maxCount == 0 ? base : BatchPolicies.bounded(base, maxDelay, maxCount);
    }

    /** Whether requests enter the doorway on arrival (long) rather than at their cast (short). */
    public static boolean longDoorway(Properties p) {
        return DOORWAY.get(p).equals("long");
    }
}
