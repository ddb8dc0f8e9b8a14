package org.fts.loadtest.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code bin/fts load --cap C}: each server process in a cgroup of its own, capped at {@code C} of a core by the
 * cgroup v1 {@code cpu} controller (CFS quota), so that on one box each replica behaves like a small host of its
 * own. Needs root and {@code /sys/fs/cgroup/cpu}; says so when either is missing. The groups are removed when the
 * processes are gone.
 */
final class CpuCap implements AutoCloseable {
    static final Path ROOT = Path.of("/sys/fs/cgroup/cpu");
    private static final long PERIOD_US = 100_000;
    private final List<Path> groups;

    private CpuCap(List<Path> groups) {
        this.groups = groups;
    }

    /** Why {@code --cap} cannot work here, or null if it can. */
    static String unavailable() {
        if (!Files.isDirectory(ROOT) || !Files.exists(ROOT.resolve("cpu.cfs_quota_us"))) {
            return "--cap needs the cgroup v1 cpu controller at " + ROOT + " (not mounted here: cgroup v2, or a "
                    + "container without it)";
        }
        if (!Files.isWritable(ROOT.resolve("tasks"))) {
            return "--cap needs root: " + ROOT + " is not writable by this user";
        }
        return null;
    }

    /** Moves each of {@code pids} (every thread) into a group of its own capped at {@code cores}. */
    static CpuCap apply(List<Long> pids, double cores) throws IOException {
        String why = unavailable();
        if (why != null) {
            throw new IllegalStateException(why);
        }
        List<Path> groups = new ArrayList<>();
        CpuCap cap = new CpuCap(groups);
        try {
            for (long pid : pids) {
                Path g = ROOT.resolve("fts-load-" + pid);
                Files.createDirectories(g);
                groups.add(g);
                Files.writeString(g.resolve("cpu.cfs_period_us"), Long.toString(PERIOD_US));
                Files.writeString(g.resolve("cpu.cfs_quota_us"), Long.toString(Math.round(cores * PERIOD_US)));
                Files.writeString(g.resolve("cgroup.procs"), Long.toString(pid));
            }
        } catch (IOException | RuntimeException e) {
            cap.close();
            throw e;
        }
        return cap;
    }

    static String describe(double cores) {
        return String.format(Locale.ROOT, "each server process capped at %.2f of a core (cgroup v1 cpu)", cores);
    }

    /** Removes the groups; a process still in one is moved back to the root group first. */
    @Override
    public void close() {
        for (Path g : groups) {
            try {
                for (String pid : Files.readAllLines(g.resolve("cgroup.procs"))) {
                    if (!pid.isBlank()) {
                        Files.writeString(ROOT.resolve("cgroup.procs"), pid.trim());
                    }
                }
                Files.delete(g);
            } catch (IOException e) {
                System.err.println("load: could not remove " + g + ": " + e.getMessage());
            }
        }
    }
}
