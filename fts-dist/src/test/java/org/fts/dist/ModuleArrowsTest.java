package org.fts.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The README's module table is the architecture: its rows are the parent POM's modules in their order, its "uses"
 * column is exactly the FTS modules each POM declares outside test scope, and every arrow points up the table.
 * (That a POM declares every FTS module its code uses, and no unused one for compile, is Maven's bytecode
 * analysis, {@code dependency:analyze-only} in the parent POM.)
 */
class ModuleArrowsTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern ROW = Pattern.compile("^\\| `([^`]+)` \\| ([^|]*) \\|", Pattern.MULTILINE);
    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
    private static final Pattern DEPENDENCY = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL);

    /** A module's FTS arrows: module name to scope. */
    static Map<String, String> arrows(String pom, Map<String, String> moduleOfArtifact) {
        String deps = pom.replaceAll("(?s)<build>.*?</build>", "")
                .replaceAll("(?s)<dependencyManagement>.*?</dependencyManagement>", "");
        Map<String, String> out = new LinkedHashMap<>();
        Matcher m = DEPENDENCY.matcher(deps);
        while (m.find()) {
            String d = m.group(1);
            String module = moduleOfArtifact.get(tag(d, "artifactId"));
            String scope = tag(d, "scope");
            String type = tag(d, "type");
            if (module != null && !"test".equals(scope) && (type == null || "jar".equals(type))) {
                out.put(module, scope == null ? "compile" : scope);
            }
        }
        return out;
    }

    /** The README's "uses" cell: {@code a, b; c (runtime)}, short names without {@code fts-}. */
    static Map<String, String> cell(String text, Set<String> modules) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String item : text.split("[,;]")) {
            String t = item.trim();
            if (t.isEmpty()) {
                continue;
            }
            String scope = "compile";
            Matcher s = Pattern.compile("^(.*?) \\((\\w+)\\)$").matcher(t);
            if (s.matches()) {
                t = s.group(1).trim();
                scope = s.group(2);
            }
            out.put(modules.contains(t) ? t : "fts-" + t, scope);
        }
        return out;
    }

    private static String tag(String xml, String name) {
        Matcher m = Pattern.compile("<" + name + ">\\s*([^<]*?)\\s*</" + name + ">").matcher(xml);
        return m.find() ? m.group(1) : null;
    }

    private static String read(Path p) throws IOException {
        return Files.readString(p, StandardCharsets.UTF_8);
    }

    @Test
    void theReadmesModuleTableIsThePomsArrowsAndEveryArrowPointsUp() throws IOException {
        List<String> modules = new ArrayList<>();
        Matcher mm = MODULE.matcher(read(ROOT.resolve("pom.xml")));
        while (mm.find()) {
            modules.add(mm.group(1).trim());
        }
        Map<String, String> moduleOfArtifact = new LinkedHashMap<>();
        Map<String, String> poms = new LinkedHashMap<>();
        for (String m : modules) {
            String pom = read(ROOT.resolve(m).resolve("pom.xml"));
            poms.put(m, pom);
            String own = pom.replaceAll("(?s)<parent>.*?</parent>", "");
            moduleOfArtifact.put(tag(own, "artifactId"), m);
        }
        String readme = read(ROOT.resolve("README.md"));
        Map<String, String> uses = new LinkedHashMap<>();
        Matcher row = ROW.matcher(readme.substring(readme.indexOf("## Modules")));
        while (row.find()) {
            uses.put(row.group(1), row.group(2));
        }
        assertEquals(modules, new ArrayList<>(uses.keySet()), "the README's module table lists the parent POM's "
                + "modules in their order");
        Set<String> names = new TreeSet<>(modules);
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < modules.size(); i++) {
            String m = modules.get(i);
            Map<String, String> declared = arrows(poms.get(m), moduleOfArtifact);
            Map<String, String> documented = cell(uses.get(m), names);
            if (!declared.equals(documented)) {
                wrong.add(m + ": its POM declares " + declared + ", the README says " + documented);
            }
            for (String d : declared.keySet()) {
                if (modules.indexOf(d) >= i) {
                    wrong.add(m + " depends on " + d + ", which is not above it");
                }
            }
        }
        assertTrue(wrong.isEmpty(), "module arrows:\n" + String.join("\n", wrong));
    }

    /**
     * Arrows that must never exist, whatever the table's order allows (outside test scope): the adaptor sees the
     * group-communication interface only, never a binding or the protocol's internals; batching and the front end
     * know no group layer; the intake knows no listener and no binding; the FT client needs nothing of the server side;
     * nothing shipped depends on a test kit, the chaos harness or the benchmarks.
     */
    static final Map<String, List<String>> NEVER = Map.of(
            "fts-goa", List.of("fts-gc-core", "fts-order", "fts-jgroups", "fts-gc-jgroups", "fts-gc-raft"),
            "fts-interceptors", List.of("fts-gc-interface", "fts-gc-core", "fts-goa"),
            "fts-gc-interface", List.of("fts-gc-core", "fts-order", "fts-goa"),
            "fts-replica", List.of("fts-process", "fts-testkit", "fts-checker", "fts-chaos", "samples", "loadtest"),
            "fts-order", List.of("fts-process", "fts-jgroups", "fts-gc-jgroups", "fts-gc-raft"),
            "fts-batching", List.of("fts-gc-interface", "fts-gc-core", "fts-order", "fts-interceptors"),
            "fts-frontend", List.of("fts-gc-interface", "fts-gc-core", "fts-order", "fts-log", "fts-interceptors"),
            "fts-intake", List.of("fts-frontend", "fts-gc-core", "fts-order", "fts-jgroups", "fts-log"));

    @Test
    void noNeverArrow() throws IOException {
        List<String> wrong = new ArrayList<>();
        Map<String, String> moduleOfArtifact = new LinkedHashMap<>();
        Map<String, String> poms = new LinkedHashMap<>();
        Matcher mm = MODULE.matcher(read(ROOT.resolve("pom.xml")));
        while (mm.find()) {
            String m = mm.group(1).trim();
            String pom = read(ROOT.resolve(m).resolve("pom.xml"));
            poms.put(m, pom);
            moduleOfArtifact.put(tag(pom.replaceAll("(?s)<parent>.*?</parent>", ""), "artifactId"), m);
        }
        assertTrue(poms.keySet().containsAll(NEVER.keySet()), "every module named by a never arrow exists");
        for (Map.Entry<String, List<String>> e : NEVER.entrySet()) {
            for (String d : arrows(poms.get(e.getKey()), moduleOfArtifact).keySet()) {
                if (e.getValue().contains(d)) {
                    wrong.add(e.getKey() + " depends on " + d + ": never");
                }
            }
        }
        assertTrue(wrong.isEmpty(), "never arrows:\n" + String.join("\n", wrong));
    }

    /** The modules whose main code may use test-jars: test kits, which nothing shipped depends on. */
    static final List<String> TEST_KITS = List.of("fts-testkit");

    /** A test-jar outside test scope is a test kit's only: product code never compiles against test code. */
    @Test
    void testJarsOutsideTestScopeOnlyInATestKit() throws IOException {
        List<String> wrong = new ArrayList<>();
        Matcher mm = MODULE.matcher(read(ROOT.resolve("pom.xml")));
        while (mm.find()) {
            String m = mm.group(1).trim();
            String deps = read(ROOT.resolve(m).resolve("pom.xml")).replaceAll("(?s)<build>.*?</build>", "")
                    .replaceAll("(?s)<dependencyManagement>.*?</dependencyManagement>", "");
            Matcher d = DEPENDENCY.matcher(deps);
            while (d.find()) {
                String dep = d.group(1);
                if ("test-jar".equals(tag(dep, "type")) && !"test".equals(tag(dep, "scope"))
                        && !TEST_KITS.contains(m)) {
                    wrong.add(m + " uses the test-jar of " + tag(dep, "artifactId") + " outside test scope");
                }
            }
        }
        assertTrue(wrong.isEmpty(), "test-jar arrows:\n" + String.join("\n", wrong));
    }

    @Test
    void theCellAndThePomReadersSeeScopes() {
        Map<String, String> c = cell("config, goa; gc-raft (runtime), samples", Set.of("samples"));
        assertEquals(Map.of("fts-config", "compile", "fts-goa", "compile", "fts-gc-raft", "runtime", "samples",
                "compile"), c);
        String pom = "<project><dependencies><dependency><groupId>org.fts</groupId><artifactId>fts-goa</artifactId>"
                + "</dependency><dependency><artifactId>fts-log</artifactId><scope>test</scope></dependency>"
                + "<dependency><artifactId>fts-goa</artifactId><type>test-jar</type></dependency></dependencies>"
                + "<build><plugins><plugin><dependencies><dependency><artifactId>fts-log</artifactId></dependency>"
                + "</dependencies></plugin></plugins></build></project>";
        assertEquals(Map.of("fts-goa", "compile"), arrows(pom, Map.of("fts-goa", "fts-goa", "fts-log", "fts-log")));
    }
}
