package org.fts.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import fts_samples.Counter;
import fts_samples.CounterHelper;
import org.fts.goa.BackupFile;
import org.fts.replica.BackupCommand;
import org.fts.process.Waits;
import org.fts.testkit.ReplicaCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.omg.CORBA.ORB;

/**
 * {@code fts backup} and {@code fts restore} against two groups of three replica JVMs: a backup taken while a client
 * keeps writing is the state at one position of the order; restored into a new group, every replica of it holds
 * exactly that state (the objects digest the backup records, one whole-state digest across the group, the
 * counter's value), a replica restarted by {@code kill -9} gets it too, a group that answered calls refuses a
 * second restore unless forced, and the forced one takes the group back to the backup.
 */
class BackupRestoreProcessTest {
    private static final Path LOGS = Path.of("target", "child-logs");
    @TempDir
    Path backups;
    private ReplicaCluster source;
    private ReplicaCluster target;
    private ORB orb;

    @AfterEach
    void stop() {
        if (orb != null) {
            orb.shutdown(false);
        }
        if (source != null) {
            source.close();
        }
        if (target != null) {
            target.close();
        }
    }

    private record Run(int exit, String text) {
    }

    private static Run command(String... args) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int exit = BackupCommand.run(args, new PrintStream(buf, true, StandardCharsets.UTF_8));
        return new Run(exit, buf.toString(StandardCharsets.UTF_8));
    }

    private static String digest(ReplicaCluster c, int i) {
        try {
            return c.digest(i);
        } catch (java.io.IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String at(ReplicaCluster c) {
        return String.join(",", c.probeAddress(0), c.probeAddress(1), c.probeAddress(2));
    }

    @Test
    void aBackupTakenWhileTheGroupServesRestoresIntoANewGroupAtOnePositionOfTheOrder() throws Exception {
        String id = UUID.randomUUID().toString().substring(0, 6);
        source = new ReplicaCluster("bk-" + id, 3, false, List.of("-Dfts.backup.dir=" + backups.toAbsolutePath()), LOGS);
        orb = ORB.init(new String[0], Clients.ftDefaults());
        Counter counter = CounterHelper.narrow(orb.string_to_object(source.reference("counter")));
        for (int i = 0; i < 17; i++) {
            counter.increment();
        }
        // a client keeps writing while the backup is taken
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong last = new AtomicLong();
        AtomicReference<Throwable> writerFailed = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            try {
                while (!stop.get()) {
                    last.set(counter.increment());
                }
            } catch (RuntimeException e) {
                writerFailed.set(e);
            }
        }, "writer");
        writer.start();
        Waits.await(() -> last.get() >= 40, Duration.ofSeconds(30), () -> "the writer writes");
        Path copy = backups.resolve("copy" + BackupFile.SUFFIX);
        // sent to the replica named, not the first that answers (its host's fts.backup.dir gets the file)
        Run backup = command("backup", "--at", at(source), "--group", source.group(), "--replica", "r1", "--to",
                copy.toString());
        long atBackupEnd = last.get();
        Waits.await(() -> last.get() > atBackupEnd + 20, Duration.ofSeconds(30), () -> "the group serves on");
        stop.set(true);
        writer.join(30_000);
        assertEquals(null, writerFailed.get(), "every write of the writer was answered");
        assertEquals(0, backup.exit(), backup.text());
        BackupFile file = BackupFile.read(copy);   // format, checksum and objects digest checked
        assertEquals(source.group(), file.group(), file.describe());
        assertTrue(backup.text().contains(file.objectsDigest()), backup.text());
        assertTrue(backup.text().contains(" taken by r1 "), backup.text());
        Run nobody = command("backup", "--at", at(source), "--group", source.group(), "--replica", "r9");
        assertEquals(3, nobody.exit(), nobody.text());
        assertTrue(nobody.text().contains("replica r9 did not answer as serving"), nobody.text());

        target = new ReplicaCluster("rs-" + id, 3, false, List.of("-Dfts.backup.dir=" + backups.toAbsolutePath()), LOGS);
        // a replica restores only what its host's operator put into its fts.backup.dir
        Path elsewhere = java.nio.file.Files.createTempFile("elsewhere", BackupFile.SUFFIX);
        try {
            java.nio.file.Files.copy(copy, elsewhere, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Run outside = command("restore", "--from", elsewhere.toString(), "--at", at(target), "--group",
                    target.group());
            assertEquals(1, outside.exit(), outside.text());
            assertTrue(outside.text().contains("only backups in its fts.backup.dir"), outside.text());
        } finally {
            java.nio.file.Files.deleteIfExists(elsewhere);
        }
        Run restore = command("restore", "--from", copy.toAbsolutePath().toString(), "--at", at(target),
                "--group", target.group());
        assertEquals(0, restore.exit(), restore.text());
        assertTrue(restore.text().contains("objects digest " + file.objectsDigest()), "the restored objects are the "
                + "backup's: " + restore.text() + "\nbackup: " + file.describe());
        // the command answers once the replica it reached installed the backup; the others follow in the order
        target.awaitEqualDigests(List.of(0, 1, 2), Duration.ofSeconds(30));

        ORB other = ORB.init(new String[0], Clients.ftDefaults());
        try {
            Counter restored = CounterHelper.narrow(other.string_to_object(target.reference("counter")));
            long value = restored.value();
            assertTrue(value >= 40 && value <= atBackupEnd, "the backup holds the counter at a position taken "
                    + "during the command: " + value + " not in [40, " + atBackupEnd + "]");
            assertTrue(last.get() > value, "the source group went on past the backup's position");
            assertEquals(value + 1, restored.increment());

            // a restarted replica of the restored group gets the restored state from the others
            target.kill(2);
            target.restart(2, List.of());
            Waits.await(() -> digest(target, 2).equals(digest(target, 0)), Duration.ofSeconds(30),
                    () -> "the restarted replica holds the group's state");

            // the group has answered calls now: a second restore is refused everywhere, unless forced
            Run again = command("restore", "--from", copy.toAbsolutePath().toString(), "--at", at(target),
                    "--group", target.group());
            assertEquals(1, again.exit(), again.text());
            assertTrue(again.text().contains("refused"), again.text());
            assertEquals(value + 1, restored.value(), "a refused restore changes nothing");
            Run forced = command("restore", "--force", "--from", copy.toAbsolutePath().toString(), "--at",
                    at(target), "--group", target.group());
            assertEquals(0, forced.exit(), forced.text());
            assertEquals(value, restored.value(), "the forced restore took the group back to the backup");
            target.awaitEqualDigests(List.of(0, 1, 2), Duration.ofSeconds(30));
        } finally {
            other.shutdown(false);
        }
    }

    /** Replica i's own fts.backup.dir under {@code base}: {@code <prefix>-r<i>}, as on hosts of their own. */
    private static java.util.Map<Integer, List<String>> directoryEach(Path base, String prefix) throws Exception {
        java.util.Map<Integer, List<String>> options = new java.util.HashMap<>();
        for (int i = 0; i < 3; i++) {
            Path dir = java.nio.file.Files.createDirectories(base.resolve(prefix + "-r" + i)).toAbsolutePath();
            options.put(i, List.of("-Dfts.backup.dir=" + dir));
        }
        return options;
    }

    private static List<String> backupsIn(Path dir) throws Exception {
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(BackupFile.SUFFIX)).toList();
        }
    }

    /**
     * Two three-host groups (127.0.0.2-4, the tcp stack), each replica with a backup directory of its own: the backup
     * command, run from another address, reaches the replica it names and the file lands in that replica's directory
     * only; the operator copies it into one replica's directory of the new group and restores there. A restore sent
     * to a replica whose directory does not hold the file is refused. The restored group's digests are equal and its
     * counter is the backup's.
     */
    @Test
    void aBackupAndRestoreBetweenTwoThreeHostGroupsWithADirectoryPerReplica() throws Exception {
        String id = UUID.randomUUID().toString().substring(0, 6);
        List<String> hosts = List.of("127.0.0.2", "127.0.0.3", "127.0.0.4");
        source = ReplicaCluster.onHosts("bh-" + id, hosts, List.of(), directoryEach(backups, "source"), LOGS);
        orb = ORB.init(new String[0], Clients.ftDefaults());
        Counter counter = CounterHelper.narrow(orb.string_to_object(source.reference("counter")));
        for (int i = 0; i < 30; i++) {
            counter.increment();
        }
        Path operator = java.nio.file.Files.createDirectories(backups.resolve("operator"));
        Path copy = operator.resolve("bank" + BackupFile.SUFFIX);
        Run backup = command("backup", "--at", at(source), "--group", source.group(), "--replica", "r2", "--to",
                copy.toString());
        assertEquals(0, backup.exit(), backup.text());
        assertEquals(1, backupsIn(backups.resolve("source-r2")).size(), "the file is in r2's directory");
        assertEquals(List.of(), backupsIn(backups.resolve("source-r0")), "and in no other replica's");
        assertEquals(List.of(), backupsIn(backups.resolve("source-r1")), "and in no other replica's");
        BackupFile file = BackupFile.read(copy);
        assertTrue(backup.text().contains(" taken by r2 "), backup.text());

        target = ReplicaCluster.onHosts("rh-" + id, hosts, List.of(), directoryEach(backups, "target"), LOGS);
        Path placed = backups.resolve("target-r1").resolve(copy.getFileName());
        java.nio.file.Files.copy(copy, placed);
        Run wrongReplica = command("restore", "--from", placed.toString(), "--at", at(target), "--group",
                target.group(), "--replica", "r0");
        assertEquals(1, wrongReplica.exit(), wrongReplica.text());
        assertTrue(wrongReplica.text().contains("only backups in its fts.backup.dir"), wrongReplica.text());
        Run restore = command("restore", "--from", placed.toString(), "--at", at(target), "--group", target.group(),
                "--replica", "r1");
        assertEquals(0, restore.exit(), restore.text());
        assertTrue(restore.text().contains("objects digest " + file.objectsDigest()), restore.text());
        target.awaitEqualDigests(List.of(0, 1, 2), Duration.ofSeconds(30));
        ORB other = ORB.init(new String[0], Clients.ftDefaults());
        try {
            Counter restored = CounterHelper.narrow(other.string_to_object(target.reference("counter")));
            assertEquals(30, restored.value(), "the restored group holds the backup's counter");
        } finally {
            other.shutdown(false);
        }
    }

    /**
     * Objects created and destroyed while serving are part of a backup: a forced restore brings back an account closed
     * since the backup (its servant made by the bank's servant activator, at every replica) and removes one opened
     * since, with the balances the backup held.
     */
    @Test
    void aRestoreBringsBackTheObjectsTheBackupHeldAndDropsThoseCreatedSince() throws Exception {
        String id = UUID.randomUUID().toString().substring(0, 6);
        source = new ReplicaCluster("ob-" + id, 3, false, List.of("-Dfts.backup.dir=" + backups.toAbsolutePath()), LOGS);
        orb = ORB.init(new String[0], Clients.ftDefaults());
        fts_samples.Bank bank = fts_samples.BankHelper.narrow(orb.string_to_object(source.reference("bank")));
        for (int i = 1; i <= 5; i++) {
            bank.open().deposit(10L * i);
        }
        Path copy = backups.resolve("accounts" + BackupFile.SUFFIX);
        // sent to the replica named, not the first that answers (its host's fts.backup.dir gets the file)
        Run backup = command("backup", "--at", at(source), "--group", source.group(), "--replica", "r1", "--to",
                copy.toString());
        assertEquals(0, backup.exit(), backup.text());
        bank.close("acct-2", "acct-1");
        bank.open().deposit(99);   // acct-6
        assertEquals(5, bank.accounts());   // acct-1, 3, 4, 5 and 6
        assertEquals(249, bank.total());
        Run forced = command("restore", "--force", "--from", copy.toAbsolutePath().toString(), "--at", at(source),
                "--group", source.group());
        assertEquals(0, forced.exit(), forced.text());
        assertEquals(5, bank.accounts());
        assertEquals(150, bank.total());
        ORB plain = ORB.init(new String[0], Clients.orbDefaults());
        try {
            for (int r = 0; r < 3; r++) {
                org.omg.CORBA.Object acct2 = plain.string_to_object(Clients.corbaloc("127.0.0.1", source.ports().get(r),
                        source.group(), "acct-2"));
                assertEquals(20, fts_samples.AccountHelper.unchecked_narrow(acct2).balance(), "acct-2 back at r" + r);
                org.omg.CORBA.Object acct6 = plain.string_to_object(Clients.corbaloc("127.0.0.1", source.ports().get(r),
                        source.group(), "acct-6"));
                int replica = r;
                org.junit.jupiter.api.Assertions.assertThrows(org.omg.CORBA.OBJECT_NOT_EXIST.class,
                        () -> fts_samples.AccountHelper.unchecked_narrow(acct6).balance(), "acct-6 gone at r" + replica);
            }
        } finally {
            plain.shutdown(false);
        }
        source.awaitEqualDigests(List.of(0, 1, 2), Duration.ofSeconds(30));
    }

    /**
     * With {@code fts.admin.passcode_file}, a replica runs only commands signed with its passcode: a stranger who
     * reaches the probe port can neither take a backup nor restore one (nor with a passcode of their own), and the
     * operator with the passcode file can.
     */
    @Test
    void aStrangerWithoutTheAdminPasscodeCanNeitherBackUpNorRestore() throws Exception {
        Path passcode = backups.resolve("admin.passcode");
        java.nio.file.Files.writeString(passcode, "a passcode of the operators, long enough\n");
        Path stranger = backups.resolve("guess.passcode");
        java.nio.file.Files.writeString(stranger, "a passcode of a stranger, long enough\n");
        String id = UUID.randomUUID().toString().substring(0, 6);
        source = new ReplicaCluster("pc-" + id, 3, false, List.of("-Dfts.backup.dir=" + backups.toAbsolutePath(),
                "-Dfts.admin.passcode_file=" + passcode.toAbsolutePath()), LOGS);
        Run unsigned = command("backup", "--at", at(source), "--group", source.group());
        assertEquals(1, unsigned.exit(), unsigned.text());
        assertTrue(unsigned.text().contains("refused: this replica requires the admin passcode"), unsigned.text());
        Run guessed = command("backup", "--at", at(source), "--group", source.group(), "--passcode-file",
                stranger.toString());
        assertEquals(1, guessed.exit(), guessed.text());
        assertTrue(guessed.text().contains("refused: the command's passcode is not this replica's"), guessed.text());
        Run backup = command("backup", "--at", at(source), "--group", source.group(), "--passcode-file",
                passcode.toString());
        assertEquals(0, backup.exit(), backup.text());
        String file = backup.text().substring("backup ".length(), backup.text().indexOf(" taken by "));
        Run restore = command("restore", "--force", "--from", file, "--at", at(source), "--group", source.group());
        assertEquals(1, restore.exit(), restore.text());
        assertTrue(restore.text().contains("refused: this replica requires the admin passcode"), restore.text());
        assertTrue(java.nio.file.Files.exists(Path.of(file)), "the refused restore left the backup alone");
        // JGroups' own keys that change a protocol (op=, jmx= with a value) are off the port; FTS's status answers
        String[] at = source.probeAddress(0).split(":");
        String write = probe(at[0], Integer.parseInt(at[1]), "jmx=UNICAST3.xmit_interval=1234");
        assertTrue(!write.contains("xmit_interval"), "JGroups' jmx= handler answered: " + write);
        assertTrue(probe(at[0], Integer.parseInt(at[1]), "fts").contains("fts.id=r0"), "the status answers");
    }

    /** What the probe port answers {@code key} (as fts status asks: one line, then the answer until it closes). */
    private static String probe(String host, int port, String key) throws java.io.IOException {
        try (java.net.Socket s = new java.net.Socket(host, port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write((key + "\n").getBytes(StandardCharsets.UTF_8));
            s.getOutputStream().flush();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void aDamagedBackupIsRefusedBeforeItReachesTheGroup() throws Exception {
        Path bad = backups.resolve("bad" + BackupFile.SUFFIX);
        java.nio.file.Files.write(bad, "FTSBACKUP not really".getBytes(StandardCharsets.US_ASCII));
        Run r = command("restore", "--from", bad.toAbsolutePath().toString(), "--at", "127.0.0.1:1");
        assertEquals(1, r.exit(), r.text());
        assertTrue(r.text().contains("is damaged"), r.text());
    }
}
