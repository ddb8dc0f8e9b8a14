package org.fts.loadtest.campaign;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A campaign file: the replica count, the client-count ladder, repetitions, the phase sizes, and the series
 * (one batching policy with its parameters each, or {@code unreplicated}). Format, line by line ({@code #}
 * starts a comment):
 * <pre>
 * replicas = 3
 * clients = 1, 10, 50
 * series tab-1  fts.batching=tab fts.batching.tab.doorway=1ms
 * series unreplicated
 * </pre>
 * The built-in campaigns are {@code quick}, {@code full} and {@code smoke} (resources next to this class).
 * Every unknown key or malformed line is an error naming it.
 */
public record CampaignSpec(String name, int replicas, List<Integer> clients, int repetitions, Phase warmup,
                           Phase measure, int pointTimeoutSeconds, ServerWarmup serverWarmup, List<Series> series,
                           Generator generator) {

    /**
     * The load generator: {@code grinder} (The Grinder's Jython clients, the paper's experiment; phases counted in
     * calls per client) or {@code lean} ({@code bin/fts load}'s GIOP driver, one connection per client; phases in
     * seconds: {@code lean.warmup}, {@code lean.measure}, and {@code lean.server_warmup} before a series' first
     * point).
     */
    public record Generator(String kind, double warmupSeconds, double measureSeconds, double serverWarmupSeconds) {
        public static final Generator GRINDER = new Generator("grinder", 0, 0, 0);

        public boolean lean() {
            return kind.equals("lean");
        }
    }

    /**
     * Load run against each series' fresh replicas before its first point, and not measured: without it the
     * first points measure the JIT compiler (a cold nb replica group served 622 calls/s to one client, the
     * same group warm 1611–1763). {@code calls} per client, 0 for none.
     */
    public record ServerWarmup(int clients, int calls) {
        public boolean enabled() {
            return calls > 0;
        }
    }

    /** Requests per client in a phase: {@code total / clients}, clamped to {@code [min, max]}. */
    public record Phase(int total, int min, int max) {
        public int perClient(int clients) {
            return Math.max(min, Math.min(max, total / clients));
        }
    }

    /**
     * One line of the campaign's results per client count. {@code policy} is the {@code fts.batching} value
     * ({@code unreplicated} for the plain POA baseline); {@code properties} are the replicas' ORB properties.
     */
    public record Series(String label, String policy, Map<String, String> properties) {
        public boolean unreplicated() {
            return policy.equals("unreplicated");
        }

        /** The parameters other than the policy, as {@code cb.count=10;cb.backup=5ms} ("" for none). */
        public String params() {
            List<String> p = new ArrayList<>();
            properties.forEach((k, v) -> {
                if (!k.equals("fts.batching")) {
                    p.add(k.replaceFirst("^fts\\.batching\\.", "") + "=" + v);
                }
            });
            return String.join(";", p);
        }
    }

    private static final Set<String> KEYS = Set.of("replicas", "clients", "repetitions", "warmup.total",
            "warmup.min", "warmup.max", "measure.total", "measure.min", "measure.max", "point.timeout",
            "server.warmup.clients", "server.warmup.calls", "generator", "lean.warmup", "lean.measure",
            "lean.server_warmup");

    /** A built-in campaign ({@code quick}, {@code full}, {@code smoke}) or a campaign file's path. */
    public static CampaignSpec load(String nameOrPath) throws IOException {
        try (InputStream in = CampaignSpec.class.getResourceAsStream(nameOrPath + ".campaign")) {
            if (in != null) {
                return parse(nameOrPath, new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        Path file = Path.of(nameOrPath);
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no campaign '" + nameOrPath
                    + "': neither built in (quick, quick-lean, full, smoke, smoke-lean, doorways, atab, atab-rev,"
                    + " fd800) nor a file");
        }
        String name = file.getFileName().toString().replaceFirst("\\.campaign$", "");
        return parse(name, Files.readString(file));
    }

    static CampaignSpec parse(String name, String text) {
        Map<String, String> values = new LinkedHashMap<>();
        List<Series> series = new ArrayList<>();
        int lineNo = 0;
        for (String raw : text.split("\n")) {
            lineNo++;
            String line = raw.replaceFirst("#.*", "").trim();
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("series ")) {
                series.add(series(line.substring(7).trim(), name, lineNo));
                continue;
            }
            int eq = line.indexOf('=');
            String key = eq < 0 ? line : line.substring(0, eq).trim();
            if (eq < 0 || !KEYS.contains(key)) {
                throw new IllegalArgumentException("campaign " + name + " line " + lineNo + ": unknown setting '"
                        + key + "' (known: " + new java.util.TreeSet<>(KEYS) + ", series ...)");
            }
            values.put(key, line.substring(eq + 1).trim());
        }
        if (series.isEmpty()) {
            throw new IllegalArgumentException("campaign " + name + ": no 'series' line");
        }
        List<Integer> clients = Arrays.stream(values.getOrDefault("clients", "1,10").split(","))
                .map(String::trim).map(c -> positive(name, "clients", c)).toList();
        return new CampaignSpec(name, positive(name, "replicas", values.getOrDefault("replicas", "3")), clients,
                positive(name, "repetitions", values.getOrDefault("repetitions", "1")),
                phase(name, values, "warmup", 1000, 5, 500), phase(name, values, "measure", 5000, 10, 1000),
                positive(name, "point.timeout", values.getOrDefault("point.timeout", "300")),
                new ServerWarmup(positive(name, "server.warmup.clients", values.getOrDefault("server.warmup.clients",
                        "50")), nonNegative(name, "server.warmup.calls", values.getOrDefault("server.warmup.calls",
                        "0"))), List.copyOf(series), generator(name, values));
    }

    private static Generator generator(String campaign, Map<String, String> v) {
        String kind = v.getOrDefault("generator", "grinder");
        if (!kind.equals("grinder") && !kind.equals("lean")) {
            throw new IllegalArgumentException("campaign " + campaign + ": generator must be grinder or lean, got '"
                    + kind + "'");
        }
        return new Generator(kind, seconds(campaign, v, "lean.warmup", "2"), seconds(campaign, v, "lean.measure", "5"),
                seconds(campaign, v, "lean.server_warmup", "30"));
    }

    private static double seconds(String campaign, Map<String, String> v, String key, String dflt) {
        String value = v.getOrDefault(key, dflt);
        try {
            double d = Double.parseDouble(value.trim());
            if (d >= 0 && (d > 0 || !key.equals("lean.measure"))) {
                return d;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("campaign " + campaign + ": " + key + " must be seconds (a number"
                + (key.equals("lean.measure") ? " above 0" : ", 0 or more") + "), got '" + value + "'");
    }

    private static Series series(String spec, String campaign, int lineNo) {
        String[] words = spec.split("\\s+");
        Map<String, String> props = new LinkedHashMap<>();
        for (int i = 1; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("campaign " + campaign + " line " + lineNo
                        + ": expected key=value, got '" + words[i] + "'");
            }
            props.put(words[i].substring(0, eq), words[i].substring(eq + 1));
        }
        String policy = words[0].equals("unreplicated") ? "unreplicated" : props.get("fts.batching");
        if (policy == null) {
            throw new IllegalArgumentException("campaign " + campaign + " line " + lineNo + ": series '" + words[0]
                    + "' names no fts.batching policy (or is 'unreplicated')");
        }
        return new Series(words[0], policy, java.util.Collections.unmodifiableMap(props));
    }

    private static Phase phase(String campaign, Map<String, String> v, String p, int total, int min, int max) {
        Phase phase = new Phase(positive(campaign, p + ".total", v.getOrDefault(p + ".total", "" + total)),
                positive(campaign, p + ".min", v.getOrDefault(p + ".min", "" + min)),
                positive(campaign, p + ".max", v.getOrDefault(p + ".max", "" + max)));
        if (phase.min() > phase.max()) {
            throw new IllegalArgumentException("campaign " + campaign + ": " + p + ".min > " + p + ".max");
        }
        return phase;
    }

    private static int nonNegative(String campaign, String key, String value) {
        return value.trim().equals("0") ? 0 : positive(campaign, key, value);
    }

    private static int positive(String campaign, String key, String value) {
        try {
            int n = Integer.parseInt(value.trim());
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("campaign " + campaign + ": " + key + " must be a positive integer, got '"
                + value + "'");
    }
}
