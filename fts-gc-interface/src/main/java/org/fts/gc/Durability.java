package org.fts.gc;

import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

import org.fts.config.ConfigException;
import org.fts.config.ConfigKey;

/**
 * Where a member keeps what it acknowledges (docs/durability.md): in memory (a majority crashing at once loses
 * the group's history), or in a write-ahead log on disk, synced before each acknowledgement, from which a
 * restarted member recovers its history and its application's state.
 *
 * @param log whether members log ({@code fts.durability=log})
 * @param dir the directory holding one sub-directory per replica
 * @param checkpointBytes the log's growth after which a replica checkpoints its state
 */
public record Durability(boolean log, Path dir, long checkpointBytes) {
    public static final ConfigKey<String> MODE = ConfigKey.choice("fts.durability", "memory", List.of("memory", "log"),
            "log: each replica writes what it acknowledges to a write-ahead log (fts.durability.dir) and syncs it "
                    + "before acknowledging, so that a request is answered only once a majority's disks hold it and "
                    + "a whole-group power loss loses nothing answered (it needs fts.delivery=uniform); memory: a majority "
                    + "crashing at once while a replica keeps the history makes the group refuse to serve until it is back, "
                    + "and every replica crashing at once loses every write (the group is founded anew, empty)");
    public static final ConfigKey<String> DIR = ConfigKey.absolutePath("fts.durability.dir",
            "the replicas' logs (fts.durability=log, and fts.gc=raft in either mode), in <dir>/<group>/<replica id>; "
                    + "a replica locks its own, two processes cannot share one. Empty: $STATE_DIRECTORY (systemd's "
                    + "StateDirectory=, /var/lib/fts under the shipped unit), else $XDG_STATE_HOME/fts, else "
                    + "~/.local/state/fts. A relative path is refused: it would depend on the working directory");

    public static final ConfigKey<Long> CHECKPOINT = ConfigKey.longValue("fts.durability.checkpoint", 64L << 20,
            64L << 10, 1L << 40, "bytes",
            "fts.durability=log (and fts.gc=raft in either mode): a replica checkpoints its state (servants "
                    + "through Checkpointable, the reply cache) once its log grew by this many bytes since the last "
                    + "checkpoint, and drops the log behind the previous one; a restart replays the log from its "
                    + "newest checkpoint (raft: half this apart, a snapshot every this many bytes)");

    /** The keys, validated and logged with the group's. */
    public static final List<ConfigKey<?>> KEYS = List.of(MODE, DIR, CHECKPOINT);

    public static final Durability MEMORY = new Durability(false, null, 0);

    /** The durability {@code props} configure; a log needs uniform delivery. */
    public static Durability from(Properties props) {
        if (!"log".equals(MODE.get(props))) {
            return MEMORY;
        }
        if (!GroupConfig.from(props).uniform()) {
            throw new ConfigException(MODE.name(), "is log, which needs fts.delivery=uniform: with agreed delivery a "
                    + "member delivers what it alone holds, and no log makes that survive its crash");
        }
        return new Durability(true, directory(props), CHECKPOINT.get(props));
    }

    /**
     * The directory {@code fts.durability.dir} names, or its default location: {@code $STATE_DIRECTORY} (the first
     * of them, as systemd sets it for {@code StateDirectory=}), else {@code $XDG_STATE_HOME/fts}, else
     * {@code ~/.local/state/fts}. Always absolute.
     */
    public static Path directory(Properties props) {
        return directory(DIR.get(props), System.getenv());
    }

    static Path directory(String configured, java.util.Map<String, String> env) {
        if (!configured.isEmpty()) {
            return Path.of(configured);
        }
        String state = env.getOrDefault("STATE_DIRECTORY", "");
        if (!state.isBlank()) {
            return Path.of(state.split(":")[0]).toAbsolutePath();
        }
        String xdg = env.getOrDefault("XDG_STATE_HOME", "");
        if (!xdg.isBlank() && Path.of(xdg).isAbsolute()) {
            return Path.of(xdg, "fts");
        }
        return Path.of(System.getProperty("user.home"), ".local", "state", "fts");
    }

    /** The log directory of {@code replica} in {@code group}. */
    public Path dirOf(String group, String replica) {
        return dir.resolve(group).resolve(replica);
    }
}
