package org.fts.replica;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;

import org.fts.goa.AdminPasscode;
import org.fts.goa.BackupFile;

/**
 * {@code fts backup} and {@code fts restore} (docs/backup.md): finds a serving replica of the group as {@code fts
 * status} does (JGroups' probe, TCP), preferring the one its configuration names, then one on this host
 * ({@link #choose}), and sends it the command; the replica orders it through the group, so a
 * backup is the state at one position of the total order, taken while the group serves, and a restore replaces
 * the state of every replica at one position. Exit 0 when done, 1 when the group refused or failed it, 3 when no
 * serving replica answered or the arguments are wrong.
 */
public final class BackupCommand {
    static final String USAGE = String.join("\n",
            "usage: fts backup  [--to FILE] [--replica ID] [--passcode-file FILE] [--config FILE] [--hosts H1,...] [--port P] [--range N] [--at H:P,...] [--group G]",
            "       fts restore --from FILE [--force] [--replica ID] [--passcode-file FILE] [--config FILE] [--hosts H1,...] [--port P] [--range N] [--at H:P,...] [--group G]",
            "  backup: a serving replica casts a backup into the group's total order; where it is delivered (everything",
            "  ordered before executed, nothing after) it writes its state to fts.backup.dir on its host and answers the",
            "  file's path; --to FILE copies it there (when the replica's directory is readable here). The group serves on.",
            "  restore: FILE (an absolute path the replica can read: run it on a replica's host) is checked here and",
            "  there, then cast: every replica replaces its objects' state with the backup's at that position. A group",
            "  whose reply cache holds replies (it answered FT calls lately) refuses it unless --force.",
            "  The replicas are found as fts status finds them (--config: the replica's own configuration). The command",
            "  goes to replica ID (--replica), else to the one --config names (fts.replica.id), else to one on this host.",
            "  It is signed with the admin passcode (--passcode-file, else the --config file's fts.admin.passcode_file)",
            "  when there is one: a replica with a passcode refuses unsigned commands.");
    /** How long a command may take at the replica (its own bound is 30 s), plus the way there and back. */
    private static final int COMMAND_TIMEOUT_MS = 40_000;

    private BackupCommand() {
    }

    public static void main(String[] args) {
        int exit;
        try {
            exit = run(args, System.out);
        } catch (IllegalArgumentException e) {
            System.err.println("fts " + (args.length > 0 ? args[0] : "backup") + ": " + e.getMessage());
            System.err.println(USAGE);
            exit = 3;
        }
        System.exit(exit);
    }

    /** {@code args[0]} is {@code backup} or {@code restore}; returns the exit status, printing to {@code out}. */
    public static int run(String[] args, PrintStream out) {
        if (args.length == 0 || !("backup".equals(args[0]) || "restore".equals(args[0]))) {
            throw new IllegalArgumentException("the first argument is backup or restore");
        }
        boolean restore = "restore".equals(args[0]);
        SearchOptions where = new SearchOptions();
        Path to = null;
        Path from = null;
        String replicaId = null;
        Path passcodeFile = null;
        boolean force = false;
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            if ("--help".equals(a) || "-h".equals(a)) {
                out.println(USAGE);
                return 0;
            }
            if ("--force".equals(a) && restore) {
                force = true;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + a + " needs a value");
            }
            String v = args[++i];
            if (where.take(a, v)) {
                continue;
            }
            switch (a) {
                case "--replica" -> replicaId = v;
                case "--passcode-file" -> passcodeFile = Path.of(v);
                case "--to" -> to = restore ? unknown(a) : Path.of(v);
                case "--from" -> from = restore ? Path.of(v).toAbsolutePath().normalize() : unknown(a);
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        String key;
        if (restore) {
            if (from == null) {
                throw new IllegalArgumentException("restore needs --from FILE");
            }
            if (from.toString().chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("the backup's path may not contain white space: " + from);
            }
            try {
                out.println("backup " + from + ": " + BackupFile.read(from).describe());
            } catch (IOException e) {
                out.println("fts restore: " + e.getMessage());
                return 1;
            }
            key = (force ? "fts-restore-force=" : "fts-restore=") + from;
        } else {
            key = "fts-backup";
        }
        Properties config = where.config;
        if (replicaId != null) {
            config.setProperty("fts.replica.id", replicaId);   // named outright: that one, or none
        }
        Status.Found replica = choose(where.find(5000).found(), config, BackupCommand::isThisHost);
        if (replica == null || replicaId != null && !replicaId.equals(replica.fields().get("id"))) {
            out.println("fts " + args[0] + ": " + (replicaId != null ? "replica " + replicaId + " did not answer as "
                    + "serving" : "no serving replica answered") + " (fts status says why)");
            return 3;
        }
        AdminPasscode passcode = passcodeFile != null ? AdminPasscode.fromFile(passcodeFile, "--passcode-file")
                : AdminPasscode.load(config);
        Map<String, String> answer = Status.probe(replica.host(), replica.port(), COMMAND_TIMEOUT_MS,
                passcode.sign(key, replica.fields().getOrDefault("group", ""), replica.fields().getOrDefault("id", ""),
                        System.currentTimeMillis(), java.util.UUID.randomUUID().toString()));
        String id = replica.fields().getOrDefault("id", replica.host() + ":" + replica.port());
        if (answer == null) {
            out.println("fts " + args[0] + ": replica " + id + " did not answer within " + COMMAND_TIMEOUT_MS + " ms");
            return 1;
        }
        return restore ? reportRestore(id, answer, out) : reportBackup(id, answer, to, out);
    }

    private static <T> T unknown(String option) {
        throw new IllegalArgumentException("unknown option " + option);
    }

    /**
     * The serving replica the command goes to: the one {@code config} names ({@code fts.replica.id}: the command runs
     * on its host, with its configuration), else the first on this host ({@code local}), else the first serving. A
     * backup is written to the {@code fts.backup.dir} of the replica that takes it, and a restore reads the file
     * there: run on a replica's host, both use that host's directory (docs/backup.md). Null if none serves.
     */
    static Status.Found choose(List<Status.Found> found, Properties config, Predicate<String> local) {
        List<Status.Found> serving = found.stream()
                .filter(f -> f.fields().getOrDefault("serving", "").startsWith("yes")).toList();
        String named = config.getProperty("fts.replica.id", "").trim();
        return serving.stream().filter(f -> !named.isEmpty() && named.equals(f.fields().get("id"))).findFirst()
                .or(() -> serving.stream().filter(f -> local.test(f.host())).findFirst())
                .or(() -> serving.stream().findFirst()).orElse(null);
    }

    /** Whether {@code host} is an address of this machine (a loopback address, or one of its interfaces'). */
    static boolean isThisHost(String host) {
        try {
            java.net.InetAddress a = java.net.InetAddress.getByName(host);
            return a.isLoopbackAddress() || a.isAnyLocalAddress() || java.net.NetworkInterface.getByInetAddress(a) != null;
        } catch (IOException e) {
            return false;
        }
    }

    private static int reportBackup(String id, Map<String, String> a, Path to, PrintStream out) {
        String file = a.get("backup.file");
        if (file == null) {
            out.println("fts backup: replica " + id + ": " + a.getOrDefault("backup.error",
                    a.getOrDefault("error", "no backup in its answer: " + a)));
            return 1;
        }
        out.println("backup " + file + " taken by " + id + " at position " + a.get("backup.position") + ": "
                + a.get("backup.objects") + " objects, " + a.get("backup.bytes") + " bytes of state, objects digest "
                + a.get("backup.objects_digest"));
        if (to != null) {
            try {
                BackupFile.read(Path.of(file));   // the copy is checked before it is called a backup
                Files.copy(Path.of(file), to, StandardCopyOption.REPLACE_EXISTING);
                out.println("copied to " + to);
            } catch (IOException e) {
                out.println("fts backup: the backup was written at the replica, but cannot be copied to " + to
                        + " from here: " + e.getMessage());
                return 1;
            }
        }
        return 0;
    }

    private static int reportRestore(String id, Map<String, String> a, PrintStream out) {
        String outcome = a.get("restore.outcome");
        if (!"restored".equals(outcome)) {
            out.println("fts restore: replica " + id + ": " + (outcome == null ? a.getOrDefault("restore.error",
                    a.getOrDefault("error", "no outcome in its answer: " + a)) : outcome + ": "
                    + a.get("restore.detail")));
            return 1;
        }
        out.println("restored through " + id + ": every replica holds the backup's objects at one position of the "
                + "order; objects digest " + a.get("restore.objects_digest"));
        return 0;
    }
}
