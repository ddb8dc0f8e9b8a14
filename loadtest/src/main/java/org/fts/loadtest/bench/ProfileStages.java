package org.fts.loadtest.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code bin/fts bench profile-stages FILE...}: where a replica's CPU goes, by stage of the request path. It reads
 * async-profiler's collapsed stacks taken with thread names ({@code asprof -e cpu -t -o collapsed}, one file per
 * replica) and attributes every sample to a stage by its thread and frames: JacORB's reader, dispatcher and request
 * threads (split into waiting for the execution, writing the reply, FTS's own work and JacORB's), the adaptor's own
 * listener's event loops (framing, FTS's stages, the cast's send, reply writes, waiting), FTS's delivery and
 * execution, JGroups' pool, receiver and bundler threads, the JIT compiler, the rest of the JVM. Prints each stage's
 * share of all samples, and with {@code --us-per-call X} (the replicas' CPU per call measured in the same run) its
 * microseconds per call. docs/performance.md gives the commands and the results.
 */
public final class ProfileStages {
    private ProfileStages() {
    }

    public static void main(String[] args) throws IOException {
        double usPerCall = 0;
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--us-per-call")) {
                usPerCall = Double.parseDouble(args[++i]);
            } else {
                files.add(Path.of(args[i]));
            }
        }
        if (files.isEmpty()) {
            System.err.println("usage: bin/fts bench profile-stages [--us-per-call X] COLLAPSED_FILE...");
            System.exit(2);
        }
        Map<String, Long> stages = new LinkedHashMap<>();
        long total = 0;
        for (Path f : files) {
            for (String line : Files.readAllLines(f)) {
                int space = line.lastIndexOf(' ');
                if (space < 0) {
                    continue;
                }
                long n = Long.parseLong(line.substring(space + 1).trim());
                stages.merge(stage(line.substring(0, space)), n, Long::sum);
                total += n;
            }
        }
        long all = total;
        double perCall = usPerCall;
        System.out.printf(Locale.ROOT, "%d samples from %d file(s)%n", all, files.size());
        stages.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).forEach(e ->
                System.out.printf(Locale.ROOT, "%5.1f%%%s  %s%n", 100.0 * e.getValue() / all,
                        perCall > 0 ? String.format(Locale.ROOT, " %6.1f us", perCall * e.getValue() / all) : "",
                        e.getKey()));
    }

    /** The stage of one collapsed stack: {@code [thread tid=N];frame;frame;...}. */
    static String stage(String stack) {
        int end = stack.indexOf(';');
        String thread = (end < 0 ? stack : stack.substring(0, end)).replaceAll("^\\[|]$", "").replaceAll(" tid=.*", "");
        if (thread.contains("Compiler")) {
            return "JIT compiler";
        }
        if (thread.startsWith("GC ") || thread.startsWith("G1 ") || thread.startsWith("VM ")
                || thread.contains("Sweeper") || thread.contains("Service Thread")) {
            return "JVM (GC, VM, service threads)";
        }
        if (thread.startsWith("ServerMessageReceptor")) {
            return "JacORB reader: request in";
        }
        if (thread.startsWith("RequestController")) {
            return "JacORB POA dispatch (RequestController)";
        }
        if (thread.startsWith("RequestProcessor")) {
            if (stack.contains("goa/Dispatcher.await")) {
                return "request thread: waiting for the execution";
            }
            if (stack.contains("ServerRequest.reply")) {
                return "request thread: JacORB's reply write";
            }
            if (stack.contains("org/fts/goa/")) {
                return "request thread: FTS capture, cast, answer";
            }
            return "request thread: JacORB (wait for work, dispatch)";
        }
        if (thread.startsWith("fts-iiop-")) {
            return frontEnd(stack);
        }
        if ((thread.startsWith("fts-deliver") || thread.startsWith("fts-exec"))
                && stack.contains("goa/frontend/ReplyWriter") && stack.contains("SocketChannelImpl.write")) {
            return "FTS reply: written to the socket by the thread that made it";
        }
        if (thread.startsWith("fts-deliver")) {
            if (stack.contains("goa/frontend/Exchange") || stack.contains("goa/frontend/GiopConnection.send")) {
                return "FTS reply: encode, hand to the connection's loop";
            }
            if (stack.contains("goa/Replay") || stack.contains("goa/Execution.execute")) {
                return "FTS execute (replay, reply cache)";
            }
            if (stack.contains("org/fts/goa/")) {
                return "FTS deliver (decode, route)";
            }
            return "FTS delivery thread: wait/wake";
        }
        if (thread.startsWith("fts-exec")) {
            return stack.contains("org/fts/goa/") ? "FTS execute (replay, reply cache)" : "FTS execution lane: wait/wake";
        }
        if (thread.startsWith("fts-batch-timer")) {
            return "FTS batch timer";
        }
        if (thread.contains("bundler")) {
            return "JGroups bundler thread: send";
        }
        if (thread.contains("receiver")) {
            return "JGroups receiver thread: receive (and, with DirectOrdering, order)";
        }
        if (thread.startsWith("jgroups-") || thread.startsWith("Timer runner")) {
            return "JGroups pool thread: protocols and FTS's order";
        }
        return "other";
    }

    /** A sample of the adaptor's own listener's event loop (docs/frontend.md). */
    private static String frontEnd(String stack) {
        if (stack.contains("org/jgroups/")) {
            return "front end: cast sent by JGroups on the loop";
        }
        if (stack.contains("goa/frontend/GiopFrames") || stack.contains("goa/frontend/Giop.")
                || stack.contains("goa/frontend/GiopIn")) {
            return "front end: GIOP framing and headers";
        }
        if (stack.contains("org/fts/goa/") || stack.contains("org/fts/batching/")) {
            return "front end: FTS identify, capture, cast";
        }
        if (stack.contains("epoll_wait") || stack.contains("Selector") && stack.contains("select")) {
            return "front end: waiting for events (select, wake-ups)";
        }
        if (stack.contains("write") || stack.contains("flush")) {
            return "front end: reply write";
        }
        return "front end: Netty read and tasks";
    }
}
