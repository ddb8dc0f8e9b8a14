package org.fts.config;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * Every key the modules on the class path declare ({@link ConfigKeyProvider}s), and the reference table made
 * from them ({@code bin/fts config}; {@code docs/configuration.md} is checked against it by a test).
 */
public final class ConfigReference {
    private ConfigReference() {
    }

    /** All declared keys, sorted by name; fails if two declarations use the same name. */
    public static List<ConfigKey<?>> allKeys() {
        TreeMap<String, ConfigKey<?>> keys = new TreeMap<>();
        for (ConfigKeyProvider p : ServiceLoader.load(ConfigKeyProvider.class, ConfigReference.class.getClassLoader())) {
            for (ConfigKey<?> key : p.keys()) {
                ConfigKey<?> previous = keys.put(key.name(), key);
                if (previous != null && previous != key) {
                    throw new IllegalStateException("configuration key " + key.name() + " is declared twice");
                }
            }
        }
        return new ArrayList<>(keys.values());
    }

    /** The markdown reference table: key, default, unit, allowed values, meaning. */
    public static String markdownTable() {
        StringBuilder sb = new StringBuilder();
        sb.append("| key | default | unit | allowed | meaning |\n|---|---|---|---|---|\n");
        for (ConfigKey<?> k : allKeys()) {
            String dflt = k.defaultText().isEmpty() ? "(unset)" : "`" + k.defaultText() + "`";
            sb.append("| `").append(k.name()).append("` | ").append(dflt).append(" | ")
                    .append(k.unit()).append(" | ").append(k.constraint().replace("|", "\\|")).append(" | ")
                    .append(k.description().replace("|", "\\|")).append(" |\n");
        }
        return sb.toString();
    }

    public static void main(String[] args) {
        System.out.print(markdownTable());
    }
}
