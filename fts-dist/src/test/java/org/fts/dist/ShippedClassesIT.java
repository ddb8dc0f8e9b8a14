package org.fts.dist;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * What FTS ships is what it means to: the classes of the archive's FTS jars ({@code lib/fts-*.jar}) are exactly
 * those listed in {@code src/test/resources/shipped-classes.txt} (named classes; anonymous and synthetic ones
 * aside), and none is test code by its name ({@code *Test}, {@code *IT}, {@code Fake*}, {@code Mock*},
 * {@code Stub*} outside the IDL compiler's stubs) or a test hook's ({@code *Faults}, {@code *Hook}, {@code *Access}:
 * the fault injection, the fail-stop switch and the adaptor's channel live in test-jars), and none has a member made
 * for tests (a name with {@code ForTest} in its constant pool: a test reaches shipped code through the {@code
 * Instrumentation} SPI that only the test kit implements, or over JMX). A class added to or removed from a shipped jar
 * fails this test
 * until the list says so: run it with {@code -Dfts.dist.write_class_list=true} to rewrite the list, and review
 * the difference.
 */
class ShippedClassesIT {
    private static final Path LIST = Path.of("src", "test", "resources", "shipped-classes.txt");

    @Test
    void theShippedJarsHoldExactlyTheListedClassesAndNoTestCode() throws Exception {
        Path tmp = Files.createTempDirectory(Path.of("target"), "archive-classes-").toAbsolutePath();
        Path home = ArchiveIT.unpack(tmp);
        TreeSet<String> shipped = new TreeSet<>();
        List<String> testCode = new ArrayList<>();
        try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
            for (Path jar : lib.filter(p -> p.getFileName().toString().matches("fts-.*\\.jar")).sorted().toList()) {
                String module = jar.getFileName().toString().replaceAll("-\\d.*\\.jar$", "");
                for (String c : classes(jar)) {
                    shipped.add(module + " " + c);
                    String simple = c.substring(c.lastIndexOf('.') + 1);
                    if (simple.matches(".*(Test|Tests|IT|Faults|Hook|Access)(\\$.*)?|(Fake|Mock).*")
                            || madeForTests(jar, c)) {
                        testCode.add(module + " " + c);
                    }
                }
            }
        }
        assertTrue(testCode.isEmpty(), "test code ships: " + testCode);
        if (Boolean.getBoolean("fts.dist.write_class_list")) {
            Files.write(LIST, shipped, StandardCharsets.UTF_8);
        }
        TreeSet<String> listed = new TreeSet<>();
        for (String l : Files.readAllLines(LIST, StandardCharsets.UTF_8)) {
            if (!l.isBlank() && !l.startsWith("#")) {
                listed.add(l.trim());
            }
        }
        TreeSet<String> added = new TreeSet<>(shipped);
        added.removeAll(listed);
        TreeSet<String> removed = new TreeSet<>(listed);
        removed.removeAll(shipped);
        assertTrue(added.isEmpty() && removed.isEmpty(), "the shipped classes differ from " + LIST
                + " (rewrite it with -Dfts.dist.write_class_list=true and review the difference):\n  shipped, not listed: "
                + added + "\n  listed, not shipped: " + removed);
    }

    /** Whether class {@code c} of {@code jar} names a member made for tests ({@code breakForTest}, {@code ForTests}). */
    private static boolean madeForTests(Path jar, String c) throws IOException {
        try (JarFile j = new JarFile(jar.toFile())) {
            try (InputStream in = j.getInputStream(j.getEntry(c.replace('.', '/') + ".class"))) {
                String text = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
                return text.contains("ForTest") || text.contains("forTest");
            }
        }
    }

    /** The named classes of a jar: {@code a.b.C} and {@code a.b.C$Nested}, without anonymous or numbered ones. */
    private static List<String> classes(Path jar) throws IOException {
        List<String> out = new ArrayList<>();
        try (JarFile j = new JarFile(jar.toFile())) {
            for (JarEntry e : java.util.Collections.list(j.entries())) {
                String n = e.getName();
                if (!n.endsWith(".class") || n.equals("module-info.class") || n.matches(".*\\$\\d.*")) {
                    continue;
                }
                try (InputStream in = j.getInputStream(e)) {
                    in.readNBytes(4);   // a class file's magic: readable
                }
                out.add(n.substring(0, n.length() - ".class".length()).replace('/', '.'));
            }
        }
        return out;
    }
}
