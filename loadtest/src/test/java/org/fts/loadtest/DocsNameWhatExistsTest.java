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
 * declared (or is the prefix of declared keys, {@code fts.gc.jgroups}), one segment long too ({@code fts.durabilty}
 * is caught); every {@code --option} given to a {@code bin/fts} command, or to a command in a code span as an operator
 * types it ({@code `fts backup --to F`}), is one that command's help line lists (the archive's launcher, named by a
 * path ending in {@code /bin/fts}, by {@code `fts X`} where it has X, or by a command only it has, by its own help);
 * and every option a command's parser accepts is in its help line, the source tree's launcher's and the archive's
 * ("{@code bin/fts help} lists every option").
 */
class DocsNameWhatExistsTest {
    private static final Path ROOT = Path.of("..");
    /** An {@code fts.*} key: one segment or more ({@code fts.gc}, {@code fts.durability}, {@code fts.gc.raft.members}). */
    private static final Pattern KEY = Pattern.compile("(?<![A-Za-z0-9_./-])fts\\.[a-z][a-z0-9_]*(?:\\.[a-z0-9_]+)*");
    /** Names of the form {@code fts.x} that are files, not keys. */
    private static final Set<String> NOT_KEYS = Set.of("fts.properties", "fts.jsa", "fts.jar");
    private static final Pattern OPTION = Pattern.compile("(?<![A-Za-z0-9-])--[a-z][a-z0-9-]*");
    /** An option a parser reads: {@code case "--x"}, {@code equals("--x")} or {@code "--x".equals(}. */
    private static final Pattern PARSED = Pattern.compile(
            "(?:case |equals\\()\"(--[a-z][a-z0-9-]*)\"|\"(--[a-z][a-z0-9-]*)\"\\.equals\\(");

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
                    if (NOT_KEYS.contains(key)) {
                        continue;
                    }
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
        // bin/fts X, /opt/fts/bin/fts X, and a code span that starts with the command as an operator types it: `fts X`
        // (the path before bin/: /opt/fts/ is an installed archive's; ../../ and none, the source tree's)
        Pattern use = Pattern.compile("(?:(?<![\\w./~$-])((?:[\\w.~$-]*/)*)bin/|(?<=`))fts ([a-z-]+)(?: ([a-z-]+))?"
                + "([^`\\n]*)");
        for (Path doc : docs()) {
            List<String> lines = Files.readAllLines(doc);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = use.matcher(lines.get(i));
                while (m.find()) {
                    // the source tree's launcher, unless the path says the archive's, or only the archive's has
                    // the command (fts try)
                    // a path ending in /bin/fts, or `fts X` as an operator types it where FTS is installed, is the
                    // archive's launcher when it has the command; bin/fts X is the source tree's
                    String path = m.group(1);
                    boolean archivePath = path != null && !path.isEmpty() && !path.startsWith(".")
                            || path == null && archive.containsKey(m.group(2));
                    Map<String, Set<String>> launcher = !archivePath && (help.containsKey(m.group(2))
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
            for (String option : parsed(source)) {
                if (!help.get(command).contains(option)) {
                    missing.add(command + " " + option + " (" + source + ")");
                }
            }
        });
        assertEquals(List.of(), missing, "options a command accepts that bin/fts help does not list");
    }

    /**
     * The archive's launcher lists every option its commands' parsers read (they share the source tree's parsers:
     * {@code SearchOptions} finds the replicas for all four; backup and restore share one parser, so its options are
     * checked against both lines together).
     */
    @Test
    void everyOptionAnArchiveCommandAcceptsIsInTheArchivesHelp() throws IOException {
        Map<String, Set<String>> archive = archiveHelp();
        String replica = "fts-replica/src/main/java/org/fts/replica/";
        Map<String, List<String>> parsers = new LinkedHashMap<>();
        parsers.put("status", List.of(replica + "Status.java", replica + "SearchOptions.java"));
        parsers.put("backup restore", List.of(replica + "BackupCommand.java", replica + "SearchOptions.java"));
        parsers.put("members", List.of(replica + "MembersCommand.java", replica + "SearchOptions.java"));
        List<String> missing = new ArrayList<>();
        parsers.forEach((commands, sources) -> {
            Set<String> listed = new TreeSet<>();
            for (String c : commands.split(" ")) {
                assertTrue(archive.containsKey(c), () -> "the archive's help has no line for " + c);
                listed.addAll(archive.get(c));
            }
            for (String source : sources) {
                for (String option : parsed(source)) {
                    if (!listed.contains(option)) {
                        missing.add("fts " + commands + " " + option + " (" + source + ")");
                    }
                }
            }
        });
        assertEquals(List.of(), missing, "options an archive command accepts that its help does not list");
    }

    /** The options {@code source}'s parser reads, but {@code --help}. */
    private static Set<String> parsed(String source) {
        Set<String> out = new TreeSet<>();
        Matcher m;
        try {
            m = PARSED.matcher(Files.readString(ROOT.resolve(source)));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        while (m.find()) {
            String option = m.group(1) != null ? m.group(1) : m.group(2);
            if (!option.equals("--help")) {
                out.add(option);
            }
        }
        return out;
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
