package org.fts.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The chaos harness's packet filter: drops packets between replica hosts with iptables, in one chain of its own,
 * {@code FTS-CHAOS-<pid>}, jumped to by one rule at the head of {@code OUTPUT}. On loopback every packet passes
 * OUTPUT once (then INPUT), so a rule there drops it once, and a rule naming source and destination addresses
 * touches replica-to-replica traffic only: clients connect from 127.0.0.1.
 *
 * <p>{@link #open} checks for iptables and root, removes the chains of earlier runs that died (a prefix match,
 * only for pids no longer alive; a live run's chain fails the start, since its rules would hit the same
 * addresses), and installs the chain. {@link #close()} removes it; so does a shutdown hook (Ctrl-C). Every
 * command is logged, and each is bounded: {@value #TIMEOUT_SECONDS} s, with {@code -w} for the xtables lock.
 */
public final class NetFilter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NetFilter.class);
    /** The prefix of every chain the harness makes: nothing without it is ever touched. */
    public static final String PREFIX = "FTS-CHAOS-";
    static final long TIMEOUT_SECONDS = 10;
    private static final String HOOK = "OUTPUT";

    /** The network nemeses cannot run here: no iptables, not root, or another run's rules in the way. */
    public static final class Unavailable extends IOException {
        Unavailable(String message) {
            super(message);
        }
    }

    /** Runs one command to its end (bounded) and returns its output lines; fails on a non-zero status. */
    @FunctionalInterface
    public interface Runner {
        List<String> run(List<String> command) throws IOException, InterruptedException;
    }

    private final Runner runner;
    private final Consumer<String> log;
    private final String chain;
    private final Thread hook;
    private boolean closed;

    private NetFilter(Runner runner, Consumer<String> log, String chain) {
        this.runner = runner;
        this.log = log;
        this.chain = chain;
        this.hook = new Thread(this::remove, "fts-chaos-netfilter-cleanup");
    }

    /**
     * Checks the requirements, removes stale chains and installs this process's chain.
     *
     * @param log where every command goes (the fault log), besides slf4j
     */
    public static NetFilter open(Consumer<String> log) throws IOException, InterruptedException {
        String iptables = findIptables();
        if (iptables == null) {
            throw new Unavailable("the network nemeses need iptables, which is not installed (Debian/Ubuntu: "
                    + "apt-get install -y iptables)");
        }
        if (!isRoot()) {
            throw new Unavailable("the network nemeses change the firewall with iptables and need root: run as root "
                    + "(e.g. sudo bin/fts chaos ...)");
        }
        return open(command(iptables), log, ProcessHandle.current().pid());
    }

    /** {@link #open(Consumer)} with a given runner and pid, for tests: no requirement is checked. */
    static NetFilter open(Runner runner, Consumer<String> log, long pid) throws IOException, InterruptedException {
        NetFilter f = new NetFilter(runner, log, PREFIX + pid);
        for (String stale : chains(f.iptables("-S"))) {
            long owner = ownerOf(stale);
            if (owner == pid) {
                continue;   // handled below: the same pid, an earlier run of this process
            }
            if (owner > 0 && ProcessHandle.of(owner).isPresent()) {
                throw new Unavailable("another chaos run (pid " + owner + ") holds iptables chain " + stale
                        + ": its network faults would hit the same replica addresses; wait for it to end");
            }
            f.log("removing " + stale + ", left by a run that died");
            f.removeChain(stale);
        }
        f.removeChain(f.chain);
        try {
            f.iptables("-N", f.chain);
            f.iptables("-I", HOOK, "1", "-j", f.chain);
            Runtime.getRuntime().addShutdownHook(f.hook);
        } catch (IOException | InterruptedException | RuntimeException e) {
            f.remove();
            throw e;
        }
        return f;
    }

    /** This run's chain. */
    public String chain() {
        return chain;
    }

    /** Drops every packet from {@code from} to {@code to} (one direction; addresses). */
    public synchronized void cut(String from, String to) throws IOException, InterruptedException {
        change(cutRule(chain, from, to));
    }

    /** Drops {@code percent} % of the packets from {@code from} to {@code to}, each at random. */
    public synchronized void lossy(String from, String to, int percent) throws IOException, InterruptedException {
        change(lossyRule(chain, from, to, percent));
    }

    /** Removes every drop rule: the chain stays, empty. */
    public synchronized void restore() throws IOException, InterruptedException {
        change(List.of("-F", chain));
    }

    private void change(List<String> args) throws IOException, InterruptedException {
        if (closed) {   // e.g. Ctrl-C: the shutdown hook removed the chain, and the nemesis has not stopped yet
            throw new IOException(chain + " is removed");
        }
        iptables(args);
    }

    /** Removes the chain and its jump; idempotent. */
    @Override
    public void close() {
        remove();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook runs, or ran, remove() itself
        }
    }

    private synchronized void remove() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            removeChain(chain);
        } catch (IOException e) {
            log("could not remove " + chain + ": " + e.getMessage() + " (the next run removes it)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            log("interrupted while removing " + chain + " (the next run removes it)");
        }
    }

    /** Removes every jump to {@code name}, then the chain, if it exists. */
    private void removeChain(String name) throws IOException, InterruptedException {
        List<String> rules = iptables("-S");
        for (List<String> jump : jumpsTo(rules, name)) {
            iptables(jump);
        }
        if (chains(rules).contains(name)) {
            iptables("-F", name);
            iptables("-X", name);
        }
    }

    private List<String> iptables(String... args) throws IOException, InterruptedException {
        return iptables(List.of(args));
    }

    private List<String> iptables(List<String> args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("-w", Long.toString(TIMEOUT_SECONDS / 2)));
        command.addAll(args);
        if (!args.equals(List.of("-S"))) {   // listing changes nothing: not worth a line
            log("iptables " + String.join(" ", command));
        }
        return runner.run(command);
    }

    private void log(String line) {
        LOG.info("{}", line);
        log.accept(line);
    }

    // ---- the rules, as pure functions (tested without iptables) ----

    /** A rule that drops every packet from {@code from} to {@code to}. */
    static List<String> cutRule(String chain, String from, String to) {
        return List.of("-A", chain, "-s", from + "/32", "-d", to + "/32", "-j", "DROP");
    }

    /** A rule that drops {@code percent} % of the packets from {@code from} to {@code to}, each at random. */
    static List<String> lossyRule(String chain, String from, String to, int percent) {
        if (percent <= 0 || percent >= 100) {
            throw new IllegalArgumentException("a lossy link drops 1-99 % of its packets, not " + percent);
        }
        return List.of("-A", chain, "-s", from + "/32", "-d", to + "/32", "-m", "statistic", "--mode", "random",
                "--probability", String.format(Locale.ROOT, "%.2f", percent / 100.0), "-j", "DROP");
    }

    /** The harness's chains in {@code iptables -S} output ({@code -N FTS-CHAOS-<pid>}). */
    static List<String> chains(List<String> rules) {
        return rules.stream().filter(l -> l.startsWith("-N " + PREFIX)).map(l -> l.substring(3).trim()).toList();
    }

    /** The commands that delete every jump to {@code chain} in {@code iptables -S} output. */
    static List<List<String>> jumpsTo(List<String> rules, String chain) {
        List<List<String>> deletes = new ArrayList<>();
        for (String l : rules) {
            List<String> f = List.of(l.trim().split("\\s+"));
            if (f.size() >= 4 && f.get(0).equals("-A") && f.get(f.size() - 2).equals("-j")
                    && f.get(f.size() - 1).equals(chain)) {
                List<String> d = new ArrayList<>(f);
                d.set(0, "-D");
                deletes.add(d);
            }
        }
        return deletes;
    }

    /** The pid a chain's name carries, or -1. */
    static long ownerOf(String chain) {
        try {
            return Long.parseLong(chain.substring(PREFIX.length()));
        } catch (RuntimeException e) {
            return -1;
        }
    }

    // ---- running iptables ----

    private static String findIptables() {
        String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin";
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "iptables"))) {
                return Path.of(dir, "iptables").toString();
            }
        }
        return null;
    }

    static boolean isRoot() {
        try {
            return new com.sun.security.auth.module.UnixSystem().getUid() == 0;
        } catch (RuntimeException | LinkageError e) {
            return false;   // not Unix: iptables is not there either
        }
    }

    /** Runs {@code iptables} with output to a file, so that a hung command is bounded and never blocks a pipe. */
    static Runner command(String iptables) {
        return args -> {
            List<String> command = new ArrayList<>(List.of(iptables));
            command.addAll(args);
            Path out = Files.createTempFile("fts-iptables", ".out");
            try {
                Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
                if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IOException(String.join(" ", command) + ": no answer in " + TIMEOUT_SECONDS + " s");
                }
                List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
                if (p.exitValue() != 0) {
                    throw new IOException(String.join(" ", command) + ": status " + p.exitValue() + ": "
                            + String.join(" / ", lines));
                }
                return lines;
            } finally {
                Files.deleteIfExists(out);
            }
        };
    }
}
