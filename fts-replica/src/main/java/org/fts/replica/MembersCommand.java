package org.fts.replica;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.fts.goa.AdminPasscode;

/**
 * {@code fts members list|add ID|remove ID} (docs/membership.md): finds the group's replicas as {@code fts status}
 * does, and sends the command to the leader (the replica whose status says {@code role=leader}), or to {@code
 * --replica ID}. A change is signed with the admin passcode like {@code fts backup}, ordered through the group's
 * agreement, and answered once committed. Exit 0 when done, 1 when the group refused or failed it, 3 when no
 * replica answered or the arguments are wrong.
 */
public final class MembersCommand {
    static final String USAGE = String.join("\n",
            "usage: fts members list|add ID|remove ID [--replica ID] [--passcode-file FILE] [--config FILE] [--hosts H1,...] [--port P] [--range N] [--at H:P,...] [--group G]",
            "  list: the voters (the replicas whose presence and acknowledgements count toward majorities), N, and",
            "  the replicas of the view that are learners (they take the state and serve, and count for nothing).",
            "  add ID: learner ID becomes a voter (start it first: it joins as a learner and takes the state).",
            "  remove ID: voter ID becomes a learner (stop it afterwards to take it out of the group).",
            "  One change at a time, each ordered through the group and answered once committed; a change that would",
            "  leave the view without a majority of the new voters is refused. Binding: fts.gc=raft (the jgroups",
            "  binding's voters are fixed at start: docs/membership.md). The command goes to the leader (role=leader in",
            "  fts status), or to --replica ID; it is signed like fts backup (--passcode-file, or the --config file's).");
    /** How long a change may take at the replica (its own bound is 30 s), plus the way there and back. */
    private static final int COMMAND_TIMEOUT_MS = 40_000;
    /** How long a change looks for the leader while none is known (an election after a leader left). */
    private static final long LEADER_WAIT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(15);

    private MembersCommand() {
    }

    public static void main(String[] args) {
        int exit;
        try {
            exit = run(args, System.out);
        } catch (IllegalArgumentException e) {
            System.err.println("fts members: " + e.getMessage());
            System.err.println(USAGE);
            exit = 3;
        }
        System.exit(exit);
    }

    /** {@code args}: the subcommand, its id, options; returns the exit status, printing to {@code out}. */
    public static int run(String[] args, PrintStream out) {
        if (args.length > 0 && ("--help".equals(args[0]) || "-h".equals(args[0]))) {
            out.println(USAGE);
            return 0;
        }
        if (args.length == 0 || !List.of("list", "add", "remove").contains(args[0])) {
            throw new IllegalArgumentException("the first argument is list, add or remove");
        }
        String what = args[0];
        int i = 1;
        String id = null;
        if (!"list".equals(what)) {
            if (args.length < 2 || args[1].startsWith("--")) {
                throw new IllegalArgumentException(what + " needs a replica id, such as r3");
            }
            id = args[1];
            i = 2;
        }
        SearchOptions where = new SearchOptions();
        String replicaId = null;
        Path passcodeFile = null;
        for (; i < args.length; i++) {
            String a = args[i];
            if ("--help".equals(a) || "-h".equals(a)) {
                out.println(USAGE);
                return 0;
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
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        String key = switch (what) {
            case "add" -> "fts-members-add=" + id;
            case "remove" -> "fts-members-remove=" + id;
            default -> "fts-members-list";
        };
        AdminPasscode passcode = "list".equals(what) ? AdminPasscode.none() : passcodeFile != null
                ? AdminPasscode.fromFile(passcodeFile, "--passcode-file") : AdminPasscode.load(where.config);
        long deadline = System.nanoTime() + LEADER_WAIT_NANOS;
        Map<String, String> answer;
        String targetId;
        while (true) {   // a leader being elected (the old one killed, or removed) answers "not the leader" meanwhile
            List<Status.Found> found = where.find(5000).found();
            Status.Found target = choose(found, replicaId);
            if (target == null) {
                out.println("fts members: " + (replicaId != null ? "replica " + replicaId + " did not answer"
                        : "no replica answered") + " (fts status says why)");
                return 3;
            }
            targetId = target.fields().getOrDefault("id", target.host() + ":" + target.port());
            String signed = passcode.sign(key, target.fields().getOrDefault("group", ""), targetId,
                    System.currentTimeMillis(), java.util.UUID.randomUUID().toString());
            answer = Status.probe(target.host(), target.port(), COMMAND_TIMEOUT_MS, signed);
            if (answer == null) {
                out.println("fts members: replica " + targetId + " did not answer within " + COMMAND_TIMEOUT_MS
                        + " ms");
                return 1;
            }
            boolean notLeader = answer.getOrDefault("members.error", "").contains("is not the raft leader");
            if (!notLeader || replicaId != null || System.nanoTime() > deadline) {
                break;
            }
            try {
                Thread.sleep(200);   // polling a remote leader election: nothing local to wait on
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 1;
            }
        }
        String error = answer.getOrDefault("members.error", answer.get("error"));
        if (error != null) {
            out.println("fts members " + what + (id == null ? "" : " " + id) + ": replica " + targetId + ": " + error);
        } else if (!"list".equals(what)) {
            out.println(what + " " + id + ": committed (through " + targetId + ")");
        }
        if (answer.containsKey("members.voters")) {
            out.println("voters:   " + answer.get("members.voters") + " (N=" + answer.getOrDefault("members.size", "?")
                    + ")");
            out.println("learners: " + (answer.getOrDefault("members.learners", "").isEmpty() ? "none"
                    : answer.get("members.learners")));
            out.println("view:     " + answer.getOrDefault("members.view", ""));
        }
        return error == null ? 0 : 1;
    }

    /** {@code replicaId}'s, if named; else the leader's; else the first that answered. Null if none did. */
    static Status.Found choose(List<Status.Found> found, String replicaId) {
        if (replicaId != null) {
            return found.stream().filter(f -> replicaId.equals(f.fields().get("id"))).findFirst().orElse(null);
        }
        return found.stream().filter(f -> "leader".equals(f.fields().get("role"))).findFirst()
                .or(() -> found.stream().findFirst()).orElse(null);
    }
}
