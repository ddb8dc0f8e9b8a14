package org.fts.config;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * Every {@code public static final ConfigKey} declared under {@code org.fts} on the class path, and the
 * reference table made from them ({@code bin/fts config}; {@code docs/configuration.md} is checked against
 * it by a test). Declaring a key is all it takes to document it.
 */
public final class ConfigReference {
    private ConfigReference() {
    }

    /** All declared keys, sorted by name; fails if two constants declare the same name. */
    public static List<ConfigKey<?>> allKeys() {
        TreeMap<String, ConfigKey<?>> keys = new TreeMap<>();
        for (String className : classNames()) {
            Class<?> c;
            try {
                c = Class.forName(className, false, ConfigReference.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                continue;   // a class whose optional dependencies are absent declares no key we can read
            }
            for (Field f : declaredFields(c)) {
                int m = f.getModifiers();
                if (Modifier.isStatic(m) && Modifier.isPublic(m) && Modifier.isFinal(m)
                        && f.getType() == ConfigKey.class) {
                    ConfigKey<?> key = read(f);
                    ConfigKey<?> previous = keys.put(key.name(), key);
                    if (previous != null && previous != key) {
                        throw new IllegalStateException("configuration key " + key.name() + " is declared twice");
                    }
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
            sb.append("| `").append(k.name()).append("` | `").append(k.defaultText()).append("` | ")
                    .append(k.unit()).append(" | ").append(k.constraint().replace("|", "\\|")).append(" | ")
                    .append(k.description().replace("|", "\\|")).append(" |\n");
        }
        return sb.toString();
    }

    public static void main(String[] args) {
        System.out.print(markdownTable());
    }

    private static Field[] declaredFields(Class<?> c) {
        try {
            return c.getDeclaredFields();
        } catch (LinkageError e) {
            return new Field[0];
        }
    }

    private static ConfigKey<?> read(Field f) {
        try {
            return (ConfigKey<?>) f.get(null);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read " + f, e);
        }
    }

    private static List<String> classNames() {
        List<String> names = new ArrayList<>();
        try {
            Enumeration<URL> roots = ConfigReference.class.getClassLoader().getResources("org/fts");
            for (URL root : Collections.list(roots)) {
                if (root.getProtocol().equals("jar")) {
                    JarURLConnection conn = (JarURLConnection) root.openConnection();
                    conn.setUseCaches(false);
                    try (JarFile jar = conn.getJarFile()) {
                        for (JarEntry e : Collections.list(jar.entries())) {
                            addClass(names, e.getName());
                        }
                    }
                } else if (root.getProtocol().equals("file")) {
                    Path dir = Path.of(root.toURI()).getParent().getParent();
                    try (Stream<Path> files = Files.walk(dir.resolve("org/fts"))) {
                        files.forEach(p -> addClass(names, dir.relativize(p).toString().replace('\\', '/')));
                    }
                }
            }
        } catch (IOException | URISyntaxException e) {
            throw new IllegalStateException("cannot list FTS classes", e);
        }
        names.sort(Comparator.naturalOrder());
        return names;
    }

    private static void addClass(List<String> names, String entry) {
        if (entry.startsWith("org/fts/") && entry.endsWith(".class") && !entry.contains("-")) {
            names.add(entry.substring(0, entry.length() - ".class".length()).replace('/', '.'));
        }
    }
}
