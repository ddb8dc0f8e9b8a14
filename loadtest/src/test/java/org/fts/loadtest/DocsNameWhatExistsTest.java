package org.fts.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
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
import java.util.stream.Stream;

import org.fts.config.ConfigReference;
import org.junit.jupiter.api.Test;

/**
 * What the docs name exists (issue 44's audit, made a test): every {@code fts.*} key the docs and the README name is
 * declared (or is the prefix of declared keys, {@code fts.gc.jgroups}); every {@code --option} given to a
 * {@code bin/fts} command in them is one that command's help line lists (the archive's launcher, named by a path
 * ending in {@code /bin/fts} or by a command only it has, by its own help); and every option a command's parser
 * accepts is in its help line
 * ("{@code bin/fts help} lists every option").
 */
class DocsNameWhatExistsTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern KEY = Pattern.compile("(?<![A-Za-z0-9_./-])fts\\.[a-z][a-z0-9_]*(?:\\.[a-z0-9_]+)+");
    private static final Pattern OPTION = Pattern.compile("(?<![A-Za-z0-9-])--[a-z][a-z0-9-]*");
    private static final Pattern PARSED = Pattern.compile("(?:case |equals\\()\"(--[a-z][a-z0-9-]*)\"");

    /** A command of bin/fts ({@code chaos}, {@code bench gc}) and the source file whose parser reads its options. */
    private static final Map<String, String> PARSERS = new LinkedHashMap<>();

    static {
        String lt = "loadtest/src/main/java/org/fts/loadtest/";
        PARSERS.put("demo", "loadtest/src/main/java/org/fts/loadtest/demo/Demo.java");
        PARSERS.put("status", "fts-replica/src/main/java/org/fts/replica/Status.java");
        PARSERS.put("chaos", "fts-chaos/src/main/java/org/fts/chaos/ChaosOptions.java");
        PARSERS.put("load", lt + "load/LoadOptions.java");
        PARSERS.put("campaign", lt + "campaign/Campaign.java");
        PARSERS.put("bench gc", lt + "bench/GcBench.java");
        PARSERS.put("bench goa", lt + "bench/GoaBench.java");
        PARSERS.put("bench failover", lt + "bench/FailoverBench.java");
        PARSERS.put("bench state", lt + "bench/StateBench.java");
        PARSERS.put("bench log", lt + "bench/LogBench.java");
        PARSERS.put("bench whiteboard", lt + "bench/WhiteboardBench.java");
        PARSERS.put("bench batching", lt + "bench/BatchingBench.java");
        PARSERS.put("bench profile-stages", lt + "bench/ProfileStages.java");
        PARSERS.put("simulate", "fts-order/src/test/java/org/fts/order/ProtocolSimulatorMain.java");
    }

    @Test
    void everyKeyTheDocsNameIsDeclared() throws IOException {
        Set<String> declared = new TreeSet<>();
        ConfigReference.allKeys().forEach(k -> declared.add(k.name()));
        assertFalse(declared.isEmpty());
        List<String> unknown = new ArrayList<>();
        for (Path doc : docs()) {
            List<String> lines = Files.readAllLines(doc);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = KEY.matcher(lines.get(i));
                while (m.find()) {
                    String key = m.group();
                    boolean prefix = declared.stream().anyMatch(k -> k.startsWith(key + "."));
                    boolean shownAsAMistake = lines.get(i).startsWith(" is not a configuration key", m.end());
                    if (!declared.contains(key) && !prefix && !shownAsAMistake) {
                        unknown.add(ROOT.relativize(doc) + ":" + (i + 1) + ": " + key);
                    }
                }
            }
        }
        assertEquals(List.of(), unknown, "keys the docs name that no module declares");
    }

    @Test
    void everyOptionTheDocsGiveABinFtsCommandIsInItsHelp() throws IOException {
        Map<String, Set<String>> help = help();
        Map<String, Set<String>> archive = archiveHelp();
        List<String> unknown = new ArrayList<>();
        Pattern use = Pattern.compile("(/?)bin/fts ([a-z-]+)(?: ([a-z-]+))?([^`\\n]*)");
        for (Path doc : docs()) {
            List<String> lines = Files.readAllLines(doc);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = use.matcher(lines.get(i));
                while (m.find()) {
                    // the source tree's launcher, unless the path says the archive's, or only the archive's has
                    // the command (fts try)
                    Map<String, Set<String>> launcher = m.group(1).isEmpty() && (help.containsKey(m.group(2))
                            || !archive.containsKey(m.group(2))) ? help : archive;
                    String command = launcher.containsKey(m.group(2) + " " + m.group(3))
                            ? m.group(2) + " " + m.group(3) : m.group(2);
                    String rest = command.contains(" ") ? m.group(4) : (m.group(3) == null ? "" : " " + m.group(3))
                            + m.group(4);
                    Set<String> listed = launcher.get(command);
                    if (listed == null) {
                        unknown.add(ROOT.relativize(doc) + ":" + (i + 1) + ": bin/fts " + command + " (no such command)");
                        continue;
                    }
                    Matcher o = OPTION.matcher(rest.split(" bin/fts ")[0]);
                    while (o.find()) {
                        if (!listed.contains(o.group())) {
                            unknown.add(ROOT.relativize(doc) + ":" + (i + 1) + ": bin/fts " + command + " " + o.group());
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), unknown, "options the docs give that bin/fts help does not list for that command");
    }

    @Test
    void everyOptionACommandAcceptsIsInItsHelp() throws IOException {
        Map<String, Set<String>> help = help();
        List<String> missing = new ArrayList<>();
        PARSERS.forEach((command, source) -> {
            assertTrue(help.containsKey(command), () -> "bin/fts help has no line for " + command);
            Matcher m;
            try {
                m = PARSED.matcher(Files.readString(ROOT.resolve(source)));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            while (m.find()) {
                if (!m.group(1).equals("--help") && !help.get(command).contains(m.group(1))) {
                    missing.add(command + " " + m.group(1) + " (" + source + ")");
                }
            }
        });
        assertEquals(List.of(), missing, "options a command accepts that bin/fts help does not list");
    }

    /** bin/fts's help (its header comment): each command's line and the options it lists. */
    private static Map<String, Set<String>> help() throws IOException {
        Map<String, Set<String>> out = readHelp("bin/fts", "bin/fts");
        assertTrue(out.containsKey("chaos") && out.containsKey("bench gc"), () -> "bin/fts help unreadable: " + out);
        return out;
    }

    /** The archive's launcher's help (fts-dist's bin/fts): each command and the options it lists. */
    private static Map<String, Set<String>> archiveHelp() throws IOException {
        Map<String, Set<String>> out = readHelp("fts-dist/src/dist/bin/fts", "fts");
        assertTrue(out.containsKey("replica"), () -> "the archive's launcher's help unreadable: " + out);
        return out;
    }

    /** A launcher's header comment, lines {@code #   <name> command [options]}; {@code bench X} is a command. */
    private static Map<String, Set<String>> readHelp(String script, String name) throws IOException {
        Map<String, Set<String>> out = new LinkedHashMap<>();
        Pattern line = Pattern.compile("^#   " + Pattern.quote(name) + " ([a-z-]+)(?: ([a-z-]+))?(.*)$");
        for (String l : Files.readAllLines(ROOT.resolve(script))) {
            if (!l.startsWith("#")) {
                break;
            }
            Matcher m = line.matcher(l);
            if (m.matches()) {
                boolean sub = m.group(1).equals("bench") && m.group(2) != null;
                String command = sub ? "bench " + m.group(2) : m.group(1);
                String rest = sub ? m.group(3) : (m.group(2) == null ? "" : m.group(2)) + m.group(3);
                Set<String> options = out.computeIfAbsent(command, c -> new TreeSet<>());
                Matcher o = OPTION.matcher(rest);
                while (o.find()) {
                    options.add(o.group());
                }
            }
        }
        return out;
    }

    private static List<Path> docs() throws IOException {
        List<Path> out = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
        }
        return out;
    }
}
