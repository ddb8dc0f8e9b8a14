package org.fts.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.TreeSet;

import org.slf4j.Logger;

/**
 * Helpers over declared keys: validate a component's keys at once and log the values in effect; report
 * {@code fts.*} properties that no module declares.
 */
public final class ConfigKeys {
    private ConfigKeys() {
    }

    /**
     * Reads every key (so that a bad value fails at start, naming its key, rather than at first use) and
     * logs one line with the effective values, marking those that are defaults.
     */
    public static void validateAndLog(Logger log, String component, Properties props, List<ConfigKey<?>> keys) {
        StringJoiner line = new StringJoiner(", ", component + " configuration: ", "");
        for (ConfigKey<?> key : keys) {
            line.add(key.name() + "=" + effective(key, props) + (key.isSet(props) ? "" : " (default)"));
        }
        log.info("{}", line);
    }

    /**
     * Reports every {@code fts.*} property that no module on the class path declares ({@link ConfigReference}):
     * a misspelt key would otherwise be ignored in silence, and its default used. Returns the unknown names.
     */
    public static List<String> checkNames(Logger log, Properties props) {
        List<String> known;
        try {
            known = ConfigReference.allKeys().stream().map(ConfigKey::name).toList();
        } catch (java.util.ServiceConfigurationError | LinkageError | IllegalStateException e) {
            // Advisory only: a broken provider on the class path must not stop a replica or a client.
            log.warn("fts.* property names not checked: the key registry cannot be read ({})", e.toString());
            return List.of();
        }
        List<String> unknown = new ArrayList<>();
        for (String name : new TreeSet<>(props.stringPropertyNames())) {
            if (name.startsWith("fts.") && !known.contains(name)) {
                unknown.add(name);
                String near = closest(name, known);
                log.warn("{} is not a configuration key of the FTS modules on this class path{}; it is ignored "
                        + "(bin/fts config lists every key)", name, near == null ? "" : " (did you mean " + near + "?)");
            }
        }
        return unknown;
    }

    /** The known name nearest to {@code name} (edit distance at most a third of its length), or null. */
    static String closest(String name, List<String> known) {
        String best = null;
        int bestDistance = Math.max(2, name.length() / 3) + 1;
        for (String k : known) {
            int d = distance(name, k);
            if (d < bestDistance) {
                best = k;
                bestDistance = d;
            }
        }
        return best;
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    private static <T> String effective(ConfigKey<T> key, Properties props) {
        return key.format(key.get(props));
    }
}
