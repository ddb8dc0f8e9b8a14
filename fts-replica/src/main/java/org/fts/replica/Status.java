package org.fts.replica;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.Reader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * {@code fts status}: asks every replica of a group for its standing over JGroups' probe (key {@code fts}, the
 * TCP diagnostics port each replica opens on its {@code fts.jgroups.bind_addr}), prints one line per replica
 * and the group's health, and exits with {@link StatusReport.Health#exit}: 0 serving, 1 recovering (the group
 * answers, a replica does not), 2 minority (the group does not answer), 3 unreachable or bad arguments.
 */
public final class Status {
    static final String USAGE = String.join("\n",
            "usage: fts status [--config FILE] [--hosts H1,H2,...] [--port P] [--range N] [--at H:P,...] [--group G]",
            "                  [--timeout-ms T (each replica's answer, default 5000)]",
            "  Reads each replica's standing through JGroups' probe (TCP, fts.jgroups.probe_port on each host's",
            "  bind address) and prints one line per replica, then the group's health:",
            "    SERVING (exit 0)     every replica answers and serves",
            "    RECOVERING (exit 1)  a majority serves, a replica is unreachable or not serving yet",
            "    MINORITY (exit 2)    fewer than a majority serve: the group does not answer",
            "    UNREACHABLE (exit 3) no replica answered (or bad arguments)",
            "  Point it at a group with a replica's own configuration (--config /etc/fts/bank.properties: the hosts",
            "  of fts.jgroups.initial_hosts, or of fts.replicas, and fts.jgroups.probe_port / port_range),",
            "  or with --hosts (default 127.0.0.1), --port (7500) and --range (ports tried above it, default 20).",
            "  --at asks exactly these probe addresses instead. --group keeps only that group's replicas (default:",
            "  fts.group of --config, else every answer).");

    private Status() {
    }

    public static void main(String[] args) {
        int exit;
        try {
            exit = run(args, System.out);
        } catch (IllegalArgumentException e) {
            System.err.println("fts status: " + e.getMessage());
            System.err.println(USAGE);
            exit = StatusReport.Health.UNREACHABLE.exit;
        }
        System.exit(exit);
    }

    /** Runs the command, printing to {@code out}; returns the exit status. */
    public static int run(String[] args, PrintStream out) {
        SearchOptions where = new SearchOptions();
        int timeoutMs = 5000;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if ("--help".equals(a) || "-h".equals(a)) {
                out.println(USAGE);
                return 0;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + a + " needs a value");
            }
            String v = args[++i];
            if ("--timeout-ms".equals(a)) {
                timeoutMs = Integer.parseInt(v);
            } else if (!where.take(a, v)) {
                throw new IllegalArgumentException("unknown option " + a);
            }
        }
        Search found = where.find(timeoutMs);
        List<Map<String, String>> answers = found.found().stream().map(Found::fields).toList();
        List<String> silent = found.silent();
        StatusReport report = StatusReport.of(answers, silent);
        report.lines().forEach(out::println);
        out.println(report.summary());
        return report.health().exit;
    }

    /** A replica that answered: where its probe port is, and its fields. */
    record Found(String host, int port, Map<String, String> fields) {
    }

    /** The replicas that answered, one each, and the targets where none did. */
    record Search(List<Found> found, List<String> silent) {
    }

    /**
     * Asks every target for its standing: {@code at} (HOST:PORT,...) if given, else each host ({@code hosts}, or
     * those of {@code config}) on the probe ports from {@code port} ({@code fts.jgroups.probe_port}) up to {@code
     * range} above it; keeps the replicas of {@code group} (or of {@code config}'s {@code fts.group}; null: all).
     */
    static Search find(Properties config, String hosts, Integer port, Integer range, String at, String group,
                       int timeoutMs) {
        for (String old : List.of("probe_port", "port_range", "initial_hosts", "stack", "bind_addr")) {
            if (config.getProperty("fts.gc.jgroups." + old) != null) {   // read below under its new name only
                throw new org.fts.config.ConfigException("fts.gc.jgroups." + old, "was renamed fts.jgroups." + old
                        + " (docs/release-notes.md)");
            }
        }
        Set<String> hostList = hosts != null ? new LinkedHashSet<>(List.of(hosts.split(","))) : hostsOf(config);
        int first = port != null ? port : Integer.parseInt(config.getProperty("fts.jgroups.probe_port", "7500"));
        int span = range != null ? range : Integer.parseInt(config.getProperty("fts.jgroups.port_range", "20"));
        String wantGroup = group != null ? group : config.getProperty("fts.group");
        List<Found> answers = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        List<String> silent = new ArrayList<>();
        Map<String, List<Integer>> targets = new LinkedHashMap<>();
        if (at != null) {
            for (String hp : at.split(",")) {
                int colon = hp.lastIndexOf(':');
                if (colon <= 0) {
                    throw new IllegalArgumentException("--at wants HOST:PORT, not '" + hp + "'");
                }
                targets.computeIfAbsent(hp.substring(0, colon).trim() + ":" + hp.substring(colon + 1).trim(),
                        k -> new ArrayList<>()).add(Integer.parseInt(hp.substring(colon + 1).trim()));
            }
        } else {
            for (String host : hostList) {
                List<Integer> ports = new ArrayList<>();
                for (int p = first; p <= first + span; p++) {
                    ports.add(p);
                }
                targets.put(host.trim(), ports);
            }
        }
        for (Map.Entry<String, List<Integer>> t : targets.entrySet()) {
            String host = t.getKey().contains(":") ? t.getKey().substring(0, t.getKey().lastIndexOf(':')) : t.getKey();
            boolean any = false;
            for (int p : t.getValue()) {
                Map<String, String> a = ask(host, p, timeoutMs);
                if (a == null || (wantGroup != null && !wantGroup.equals(a.get("group")))) {
                    continue;
                }
                any = true;
                if (seen.add(a.getOrDefault("id", host + ":" + p))) {
                    answers.add(new Found(host, p, a));
                }
            }
            if (!any) {
                List<Integer> ps = t.getValue();
                silent.add(host + ":" + ps.get(0) + (ps.size() > 1 ? "-" + ps.get(ps.size() - 1) : ""));
            }
        }
        return new Search(answers, silent);
    }

    /** One replica's {@code fts.*} fields at {@code host:port}, without the prefix; null if none answers there. */
    static Map<String, String> ask(String host, int port, int timeoutMs) {
        return probe(host, port, timeoutMs, "fts");
    }

    /**
     * Sends the probe key {@code key} to {@code host:port} and returns the {@code fts.*} fields of the answer,
     * without the prefix; null if none answers there (within {@code timeoutMs}).
     */
    public static Map<String, String> probe(String host, int port, int timeoutMs, String key) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), Math.min(timeoutMs, 500));
            s.setSoTimeout(timeoutMs);
            OutputStream o = s.getOutputStream();
            o.write((key + "\n").getBytes(StandardCharsets.UTF_8));
            o.flush();
            InputStream in = s.getInputStream();
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            Map<String, String> fields = new LinkedHashMap<>();
            for (String line : text.split("\r?\n")) {
                int eq = line.indexOf('=');
                if (line.startsWith("fts.") && eq > 0) {
                    fields.put(line.substring(4, eq), line.substring(eq + 1).trim());
                }
            }
            return fields.isEmpty() ? null : fields;
        } catch (IOException e) {
            return null;
        }
    }

    /** The hosts of a replica's configuration: its TCP discovery list, else the hosts of fts.replicas. */
    static Set<String> hostsOf(Properties config) {
        Set<String> hosts = new LinkedHashSet<>();
        String initial = config.getProperty("fts.jgroups.initial_hosts", "");
        if ("tcp".equals(config.getProperty("fts.jgroups.stack")) && !initial.isBlank()) {
            for (String h : initial.split(",")) {
                hosts.add(h.replaceAll("\\[.*", "").trim());
            }
        } else {
            for (String r : config.getProperty("fts.replicas", "").split(",")) {
                if (!r.isBlank()) {
                    hosts.add(r.substring(0, r.lastIndexOf(':') > 0 ? r.lastIndexOf(':') : r.length()).trim());
                }
            }
        }
        if (hosts.isEmpty()) {
            hosts.add(config.getProperty("fts.jgroups.bind_addr", "127.0.0.1"));
        }
        return hosts;
    }

    static Properties load(Path file) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
        }
        return p;
    }
}
