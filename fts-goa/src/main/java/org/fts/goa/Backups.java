package org.fts.goa;

import org.fts.goa.intake.Cast;
import org.fts.goa.intake.CastPath;
import org.fts.goa.intake.Membership;
import org.fts.goa.intake.ObjectKey;
import org.fts.goa.intake.ReplyCache;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.fts.config.ConfigKey;
import org.fts.gc.Durability;
import org.fts.gc.GroupChannel;
import org.fts.gc.MemberId;
import org.omg.PortableServer.Servant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Backup and restore of a serving group's state through its total order (docs/backup.md): the operator's
 * commands arrive over the binding's diagnostics ({@link GroupChannel#exposeCommands}), and each becomes a cast.
 *
 * <ul>
 *   <li>{@code fts-backup}: this replica casts a {@link Cast.Backup}; where it is delivered, at a cut of the
 *   execution lanes (everything ordered before executed, nothing after), it takes its state ({@link Snapshot}) and
 *   writes it to a {@link BackupFile} in {@code fts.backup.dir}. The group keeps serving; the other replicas do
 *   nothing. The copy is consistent: the state at one position of the order.</li>
 *   <li>{@code fts-restore=<file>} (or {@code fts-restore-force=<file>}): this replica reads and checks the file and
 *   casts its state in a {@link Cast.Restore}; every replica, at that position, replaces its objects' state with the
 *   backup's, at a cut, unless its reply cache holds a reply (a group that answered FT calls lately) and the
 *   restore is not forced: then every replica refuses it alike. The group reference stays the group's own.</li>
 * </ul>
 *
 * <p>Guarantees: every replica acts on a restore at the same position with the same outcome (the decision reads
 * only replicated state), and a restarted replica that replays its log replays the restore there too; a backup
 * cast that no one waits for (replayed from a log) writes nothing. Each command waits at most {@link #WAIT}.
 */
final class Backups {
    private static final Logger LOG = LoggerFactory.getLogger(Backups.class);

    static final ConfigKey<String> DIR = ConfigKey.absolutePath("fts.backup.dir",
            "where this replica writes the backups an operator takes through it (fts backup), as "
                    + "<group>-<time>-<replica>-<nonce>.ftsbackup, and the only directory it restores one from (fts restore); "
                    + "empty: backups under fts.durability.dir's location");
    static final List<ConfigKey<?>> KEYS = List.of(DIR, AdminPasscode.FILE);
    /** Longest a command waits for its cast to be ordered and acted on. */
    static final Duration WAIT = Duration.ofSeconds(30);
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    private final String self;
    private final MemberId member;
    private final String group;
    private final GroupChannel channel;
    private final CastPath castPath;
    private final ExecutionLanes lanes;
    private final Snapshot.Parts state;
    private final ReplyCache cache;
    /** Commands of this replica waiting for their cast: nonce to outcome. */
    private final Map<String, CompletableFuture<Map<String, String>>> waiting = new ConcurrentHashMap<>();
    private volatile Path dir;
    private volatile AdminPasscode passcode = AdminPasscode.none();

    Backups(String self, MemberId member, String group, GroupChannel channel, CastPath castPath,
            ExecutionLanes lanes, Snapshot.Parts state) {
        this.self = self;
        this.member = member;
        this.group = group;
        this.channel = channel;
        this.castPath = castPath;
        this.lanes = lanes;
        this.state = state;
        this.cache = state.cache();
    }

    /** The directory {@code fts.backup.dir} names, or {@code backups} beside the replicas' logs. */
    static Path directory(Properties props) {
        String configured = DIR.get(props);
        return configured.isEmpty() ? Durability.directory(props).resolve("backups") : Path.of(configured);
    }

    /** Where this replica writes the backups it takes. */
    void directory(Path d) {
        dir = d;
    }

    /** The passcode commands must prove ({@code fts.admin.passcode_file}), or none. */
    void passcode(AdminPasscode p) {
        passcode = p;
    }

    /**
     * An operator's command ({@link GroupChannel#exposeCommands}), signed when this replica has a passcode
     * ({@link AdminPasscode}); null if {@code signed} is none of these.
     */
    Map<String, String> command(String signed) {
        if (!signed.startsWith("fts-backup") && !signed.startsWith("fts-restore")) {
            return null;
        }
        String what = signed.startsWith("fts-backup") ? "backup" : "restore";
        AdminPasscode.Command command;
        try {
            command = passcode.accept(signed, group, self, System.currentTimeMillis());
        } catch (AdminPasscode.Refused e) {
            LOG.warn("{}: refused an operator's {} command: {}", self, what, e.getMessage());
            return Map.of(what + ".error", "refused: " + e.getMessage());
        }
        String key = command.text();
        Map<String, String> answer = null;
        if ("fts-backup".equals(key)) {
            LOG.info("{}: {} asks for a backup", self, command.who());
            answer = backup();
        } else if (key.startsWith("fts-restore=") || key.startsWith("fts-restore-force=")) {
            boolean force = key.startsWith("fts-restore-force=");
            LOG.info("{}: {} asks for a restore{} from {}", self, command.who(), force ? " (forced)" : "",
                    key.substring(key.indexOf('=') + 1));
            answer = restore(Path.of(key.substring(key.indexOf('=') + 1)), force);
        }
        if (answer != null) {
            LOG.info("{}: {}'s {}: {}", self, command.who(), what, answer);
        }
        return answer;
    }

    private Map<String, String> backup() {
        String nonce = UUID.randomUUID().toString();
        return await(nonce, new Cast.Backup(nonce, member), "backup");
    }

    private Map<String, String> restore(Path file, boolean force) {
        if (!file.isAbsolute()) {
            return Map.of("restore.error", "the backup's path must be absolute, not " + file);
        }
        if (!java.nio.file.Files.isRegularFile(file)) {
            return Map.of("restore.error", "no backup file " + file + " on this replica's host");
        }
        BackupFile b;
        try {
            Path d = dir.toAbsolutePath().normalize();
            if (!file.toRealPath().startsWith(d.toFile().exists() ? d.toRealPath() : d)) {
                return Map.of("restore.error", "a replica restores only backups in its fts.backup.dir (" + d
                        + "), not " + file + ": copy the file there on this replica's host");
            }
            b = BackupFile.read(file);
        } catch (IOException e) {
            return Map.of("restore.error", e.getMessage());
        }
        LOG.info("{}: restoring the backup {} ({}){}", self, file, b.describe(), force ? ", forced" : "");
        String nonce = UUID.randomUUID().toString();
        Map<String, String> out = await(nonce, new Cast.Restore(nonce, member, force, b.snapshot()), "restore");
        out.put("restore.file", file.toString());
        out.put("restore.backup_objects_digest", b.objectsDigest());
        return out;
    }

    private Map<String, String> await(String nonce, Cast cast, String what) {
        CompletableFuture<Map<String, String>> done = new CompletableFuture<>();
        waiting.put(nonce, done);
        try {
            castPath.castControl(cast);
            return new LinkedHashMap<>(done.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            // a backup still being taken or written is dropped: the command gave up on it (unless it just finished)
            if (!done.cancel(false) && !done.isCompletedExceptionally()) {   // cancel fails once it is done
                return new LinkedHashMap<>(done.join());
            }
            return new LinkedHashMap<>(Map.of(what + ".error", "the group did not order the " + what + " within "
                    + WAIT.toSeconds() + " s: does it serve (fts status)?" + ("restore".equals(what)
                    ? " It may still be ordered and restored later: check fts status before trying again" : "")));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new LinkedHashMap<>(Map.of(what + ".error", "interrupted"));
        } catch (ExecutionException | RuntimeException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            return new LinkedHashMap<>(Map.of(what + ".error", String.valueOf(cause.getMessage())));
        } finally {
            waiting.remove(nonce);
        }
    }

    /** Delivery path, at a replica whose state is current: a backup ordered here. */
    void delivered(Cast.Backup b) {
        if (!b.taker().equals(member)) {
            return;
        }
        CompletableFuture<Map<String, String>> done = waiting.get(b.nonce());
        if (done == null) {
            return;   // replayed from the log, or its command gave up: nothing to write
        }
        lanes.atCut(() -> {
            try {
                byte[] snapshot = Snapshot.take(state);
                Map<String, String> standing = channel.diagnostics().standing();
                String position = standing.getOrDefault("epoch", "-") + "/" + standing.getOrDefault("delivered", "-");
                long at = System.currentTimeMillis();
                // digested and written on a pool thread: the lanes go on as soon as the state is taken
                CompletableFuture.runAsync(() -> write(snapshot, position, at, b.nonce(), done));
            } catch (Snapshot.StateException | RuntimeException e) {
                done.completeExceptionally(new IllegalStateException("the state could not be taken: "
                        + e.getMessage(), e));
            }
        });
    }

    private void write(byte[] snapshot, String position, long at, String nonce,
                       CompletableFuture<Map<String, String>> done) {
        BackupFile b;
        try {
            b = new BackupFile(group, self, at, position, Snapshot.objectsDigest(snapshot), snapshot);
        } catch (Snapshot.StateException e) {
            done.completeExceptionally(new IllegalStateException("the state taken cannot be read back: "
                    + e.getMessage(), e));
            return;
        }
        Path d = dir;
        // the command's nonce in the name: two backups through one replica in one millisecond are two files, and one
        // removed after its command gave up is never another's
        Path file = d.resolve(group + "-" + STAMP.format(java.time.Instant.ofEpochMilli(b.takenAtMillis())) + "-"
                + self + "-" + nonce.substring(0, 8) + BackupFile.SUFFIX);
        if (done.isCancelled()) {
            LOG.warn("{}: backup at {} not written: its command gave up waiting ({} s)", self, position,
                    WAIT.toSeconds());
            return;
        }
        try {
            b.writeTo(file);
        } catch (IOException | RuntimeException e) {
            done.completeExceptionally(new IllegalStateException("the backup was taken but cannot be written to "
                    + file + " (fts.backup.dir): " + e));
            return;
        }
        LOG.info("{}: backup written to {} ({})", self, file, b.describe());
        Map<String, String> out = new LinkedHashMap<>();
        out.put("backup.file", file.toString());
        out.put("backup.bytes", Long.toString(b.snapshot().length));
        out.put("backup.objects", Integer.toString(b.objects()));
        out.put("backup.objects_digest", b.objectsDigest());
        out.put("backup.position", b.position());
        out.put("backup.taker", self);
        if (!done.complete(out)) {   // the command gave up while the file was written: no file it did not report
            try {
                java.nio.file.Files.deleteIfExists(file);
            } catch (IOException e) {
                LOG.warn("{}: backup {} outlived its command and could not be removed: {}", self, file, e.toString());
                return;
            }
            LOG.warn("{}: backup {} removed: its command gave up waiting ({} s) while it was written", self, file,
                    WAIT.toSeconds());
        }
    }

    /**
     * Delivery path, at a replica whose state is current: a restore ordered here. Every replica decides alike,
     * on replicated state only; the one that cast it reports.
     */
    void delivered(Cast.Restore r) {
        lanes.atCut(() -> {
            Map<String, String> out = new LinkedHashMap<>();
            if (!r.force() && !cache.isEmpty()) {
                out.put("restore.outcome", "refused");
                out.put("restore.detail", "the group answered FT calls lately (its reply cache holds replies): "
                        + "restore into a new group, or force it (fts restore --force)");
                LOG.warn("{}: refused a restore: its reply cache holds replies and the restore is not forced", self);
            } else {
                try {
                    Snapshot.restoreObjects(r.snapshot(), state);
                    out.put("restore.outcome", "restored");
                    if (r.taker().equals(member)) {   // what the operator compares with the backup's
                        out.put("restore.objects_digest", Snapshot.objectsDigest(Snapshot.take(state)));
                    }
                    LOG.warn("{}: restored a backup's state ({} bytes){}", self, r.snapshot().length,
                            r.force() ? ", forced" : "");
                } catch (Snapshot.StateException | RuntimeException e) {
                    out.put("restore.outcome", "failed");
                    out.put("restore.detail", String.valueOf(e.getMessage()));
                    LOG.error("{}: a backup's state could not be restored: {}", self, e.getMessage());
                }
            }
            if (r.taker().equals(member)) {
                CompletableFuture<Map<String, String>> done = waiting.get(r.nonce());
                if (done != null) {
                    done.complete(out);
                }
            }
        });
    }
}
