package org.fts.loadtest.load;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * CPU time of processes, from Linux's {@code /proc}: the servers' (by pid, user + system time of every thread)
 * and the driver's own (the JVM's process CPU time, JIT and GC included). Also finds which local process
 * listens on a TCP port, so that the driver can measure servers it did not start. Elsewhere than Linux, server
 * CPU reads 0 and no listener is found.
 */
final class ProcessCpu {
    /** Linux's USER_HZ: {@code /proc/<pid>/stat} counts CPU time in these ticks. */
    private static final long TICKS_PER_SECOND = 100;

    private ProcessCpu() {
    }

    /** User + system CPU time of {@code pid}, in microseconds (10 ms resolution); 0 if unreadable. */
    static long micros(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // after the parenthesised command name: state is field 3, utime 14, stime 15
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 1_000_000 / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * The thread wake-ups of {@code pid} so far, by thread name: its threads' voluntary context switches (each a
     * block, on a socket, a lock or a park, that a later event ends), from {@code /proc/<pid>/task/<tid>/status}. A
     * name's numbering is left out ({@code ucast-receiver-4,g,r0#1a} and {@code ucast-receiver-9,g,r0#1a} are both
     * {@code ucast-receiver}; Linux keeps 15 characters of a name). Threads that ended are not counted: over a window,
     * compare two {@link #wakeupsByTask} readings with {@link #since}. Empty if unreadable.
     */
    static Map<String, Long> wakeupsByThread(long pid) {
        Map<String, Long> byName = new TreeMap<>();
        wakeupsByTask(pid).forEach((task, n) -> byName.merge(task.substring(0, task.lastIndexOf(' ')), n, Long::sum));
        return byName;
    }

    /** The voluntary context switches of each thread of {@code pid} so far, keyed "kind tid". Empty if unreadable. */
    static Map<String, Long> wakeupsByTask(long pid) {
        Map<String, Long> byTask = new TreeMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                String name;
                try {
                    name = Files.readString(task.resolve("comm")).trim();
                } catch (IOException e) {
                    continue;   // ended meanwhile
                }
                byTask.put(threadKind(name) + " " + task.getFileName(), voluntarySwitches(task.resolve("status")));
            }
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
        return byTask;
    }

    /**
     * The wake-ups between two {@link #wakeupsByTask} readings, by thread kind: each thread alive at the second
     * counts what it did since the first (all of it if it started since). A thread that ended in between is left
     * out, so a reading is never negative (an undercount by what such threads did).
     */
    static Map<String, Long> since(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> byName = new TreeMap<>();
        after.forEach((task, n) -> byName.merge(task.substring(0, task.lastIndexOf(' ')),
                Math.max(0, n - before.getOrDefault(task, 0L)), Long::sum));
        return byName;
    }

    /** The wake-ups of every thread kind of a {@link #wakeupsByThread} reading together. */
    static long total(Map<String, Long> byThread) {
        return byThread.values().stream().mapToLong(Long::longValue).sum();
    }

    /** A thread's name without its numbering: up to the first comma, trailing digits and separators dropped. */
    static String threadKind(String name) {
        String kind = name.split(",", 2)[0].replaceAll("[0-9#_-]+$", "");
        return kind.isEmpty() ? name : kind;
    }

    private static long voluntarySwitches(Path status) {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("voluntary_ctxt_switches:")) {
                    return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // the thread ended meanwhile
        }
        return 0;
    }

    /** The summed CPU time of {@code pids}, in microseconds. */
    static long micros(List<Long> pids) {
        long sum = 0;
        for (long pid : pids) {
            sum += micros(pid);
        }
        return sum;
    }

    /** This JVM's CPU time (every thread), in nanoseconds. */
    static long selfNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /**
     * The pid of the process listening on TCP {@code port} (IPv4 or IPv6), if one of this user's processes does:
     * the socket's inode from {@code /proc/net/tcp*}, then the process holding a descriptor on it.
     */
    static List<Long> listening(int port) {
        Set<String> inodes = new HashSet<>();
        String hexPort = String.format(Locale.ROOT, ":%04X", port);
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            try {
                for (String line : Files.readAllLines(Path.of(table))) {
                    String[] f = line.trim().split("\\s+");
                    // sl local_address rem_address st ... inode (field 9); st 0A is LISTEN
                    if (f.length > 9 && f[1].endsWith(hexPort) && f[3].equals("0A")) {
                        inodes.add(f[9]);
                    }
                }
            } catch (IOException e) {
                // no such table
            }
        }
        List<Long> pids = new ArrayList<>();
        if (inodes.isEmpty()) {
            return pids;
        }
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path proc : procs) {
                if (holdsSocket(proc, inodes)) {
                    pids.add(Long.parseLong(proc.getFileName().toString()));
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        return pids;
    }

    private static boolean holdsSocket(Path proc, Set<String> inodes) {
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(proc.resolve("fd"))) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[") && inodes.contains(target.substring(8, target.length() - 1))) {
                        return true;
                    }
                } catch (IOException e) {
                    // closed meanwhile
                }
            }
        } catch (IOException | SecurityException e) {
            // another user's process, or gone
        }
        return false;
    }
}
