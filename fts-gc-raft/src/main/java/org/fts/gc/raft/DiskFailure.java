package org.fts.gc.raft;

import java.io.IOError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.fts.gc.FailStop;

/**
 * A write to the raft binding's disk that failed stops the replica ({@link FailStop}, exit 70), as on the jgroups
 * binding (docs/durability.md, "Storage faults"): jgroups-raft 1.1.4 catches such failures and runs on (an append
 * that failed is printed and returns as if it wrote; a failed term or commit index fails the one request), a member
 * whose log takes nothing more and that fails every request after it. Restarted on a disk with room, it catches up
 * from the leader.
 */
final class DiskFailure {
    private DiskFailure() {
    }

    /**
     * Stops the replica: {@code what} failed on the log in {@code dir}. Returns only where the fail-stop action does
     * (tests), throwing.
     */
    static RuntimeException stop(Path dir, String what, Throwable cause) {
        FailStop.fatal(new IOError(new IOException("the raft log in " + dir + ": " + what + " failed"
                + (cause != null ? " (" + cause + ")" : "") + space(dir)
                + "; this replica stops rather than acknowledge what its disk may not hold", cause)));
        throw new IllegalStateException("the raft log in " + dir + ": " + what + " failed", cause);
    }

    /** {@code e} if no {@link IOException} caused it; else stops the replica ({@link #stop}). */
    static RuntimeException stopIfDisk(Path dir, String what, RuntimeException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof IOException) {
                return stop(dir, what, e);
            }
        }
        return e;
    }

    private static String space(Path dir) {
        try {
            return "; usable space on its volume: " + Files.getFileStore(dir).getUsableSpace() + " bytes";
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
