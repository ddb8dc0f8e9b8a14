package org.fts.replica;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The group's health from the replicas' probe answers ({@code fts.*} fields, {@link
 * org.fts.gc.GroupChannel#exposeStatus}): one line per replica and one verdict, with the exit status {@code fts
 * status} returns.
 */
public final class StatusReport {
    /** The verdict, worst last; {@link #exit} follows the monitoring-plugin convention (0 ok … 3 unknown). */
    public enum Health {
        /** Every replica known answers and serves. */
        SERVING(0),
        /** A majority serves (the group answers), but a replica is unreachable or not serving (yet). */
        RECOVERING(1),
        /** Fewer than a majority of the group's replicas serve: the group does not answer. */
        MINORITY(2),
        /** No replica answered. */
        UNREACHABLE(3);

        public final int exit;

        Health(int exit) {
            this.exit = exit;
        }
    }

    private final List<String> lines;
    private final Health health;
    private final String summary;

    private StatusReport(List<String> lines, Health health, String summary) {
        this.lines = lines;
        this.health = health;
        this.summary = summary;
    }

    public List<String> lines() {
        return lines;
    }

    public Health health() {
        return health;
    }

    /** One line: the verdict and why. */
    public String summary() {
        return summary;
    }

    /**
     * @param answers each reachable replica's fields (keys without the {@code fts.} prefix)
     * @param silent  probe addresses that did not answer (hosts without any replica answering)
     */
    public static StatusReport of(List<Map<String, String>> answers, List<String> silent) {
        List<Map<String, String>> sorted = new ArrayList<>(answers);
        sorted.sort(Comparator.comparing(a -> a.getOrDefault("id", "")));
        long maxDelivered = sorted.stream().mapToLong(a -> number(a.get("delivered"))).max().orElse(0);
        Set<String> known = new LinkedHashSet<>();
        int size = 0;
        for (Map<String, String> a : sorted) {
            size = Math.max(size, (int) number(a.get("size")));
            for (String m : a.getOrDefault("members", "").split(",")) {
                if (!m.isBlank()) {
                    known.add(m.trim());
                }
            }
        }
        List<String> lines = new ArrayList<>();
        int serving = 0;
        int voters = 0;
        int learnersServing = 0;
        boolean allWell = true;
        for (Map<String, String> a : sorted) {
            known.remove(a.get("id"));
            boolean serves = "yes".equals(a.get("serving"));
            boolean votes = !"no".equals(a.get("voter"));   // a learner counts in no majority (fts.group.voters)
            long lag = maxDelivered - number(a.get("delivered"));
            voters += votes ? 1 : 0;
            serving += serves && votes ? 1 : 0;
            learnersServing += serves && !votes ? 1 : 0;
            allWell &= serves;   // lag is shown, not judged: under load replicas are sampled moments apart
            lines.add(String.format("%-8s reachable  %-9s view=%s epoch=%s delivered=%s lag=%d reply_cache=%s log=%s "
                            + "digest=%s wire=%s/%s serving=%s load=%s",
                    a.getOrDefault("id", "?"), a.getOrDefault("role", "?")
                            + (votes || "learner".equals(a.get("role")) ? "" : "/learner"),
                    a.getOrDefault("view", "?"),
                    a.getOrDefault("epoch", "?"), a.getOrDefault("delivered", "?"), lag,
                    a.getOrDefault("reply_cache", "?"), a.getOrDefault("log", "-"), a.getOrDefault("digest", "?"),
                    a.getOrDefault("wire", "?"), a.getOrDefault("wire_speaks", "?"),
                    a.getOrDefault("serving", "?"), a.getOrDefault("load", "-")));
        }
        for (String m : known) {
            lines.add(String.format("%-8s UNREACHABLE (in a reachable replica's view)", m));
            allWell = false;
        }
        for (String s : silent) {
            lines.add(String.format("%-8s UNREACHABLE (no replica answers at %s)", "-", s));
            allWell = false;
        }
        int group = size > 0 ? size : voters + known.size();   // N, as every replica reports it
        int majority = group / 2 + 1;
        Health h;
        if (sorted.isEmpty()) {
            h = Health.UNREACHABLE;
        } else if (serving < majority) {
            h = Health.MINORITY;
        } else if (!allWell || voters < group) {
            h = Health.RECOVERING;
        } else {
            h = Health.SERVING;
        }
        String summary = sorted.isEmpty() ? "UNREACHABLE: no replica answered (is the probe on, and are these its "
                + "addresses and ports?)"
                : String.format("group %s: %s, %d of %d replicas serve (majority %d), %d reachable%s",
                        sorted.get(0).getOrDefault("group", "?"), h, serving, group, majority, sorted.size(),
                        learnersServing == 0 ? "" : ", and " + learnersServing + " learner(s) serving (they count in "
                                + "no majority)");
        Set<String> named = new java.util.TreeSet<>();
        for (Map<String, String> a : sorted) {
            if (a.get("voters") != null) {
                named.add(a.get("voters"));
            }
        }
        if (named.size() > 1) {   // a change of the voters is being applied (docs/membership.md)
            summary += "; the replicas name different voters: " + String.join(" / ", named)
                    + " (a change being applied: bin/fts members list)";
        }
        Set<String> builds = new java.util.TreeSet<>();
        Set<String> wires = new java.util.TreeSet<>();
        for (Map<String, String> a : sorted) {
            builds.add(a.getOrDefault("wire_speaks", "?"));
            wires.add(a.getOrDefault("wire", "?"));
        }
        if (builds.size() > 1) {   // a rolling upgrade (docs/upgrades.md)
            summary += "; builds of different wire versions serve (" + String.join(" / ", builds) + "), the group "
                    + "speaking " + String.join(" / ", wires) + ": an upgrade in progress";
        }
        return new StatusReport(lines, h, summary);
    }

    private static long number(String v) {
        try {
            return v == null ? 0 : Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
