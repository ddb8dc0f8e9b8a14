package org.fts.goa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

import org.fts.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The admin passcode of the probe's state-changing commands: what a replica runs, and what it refuses. */
class AdminPasscodeTest {
    private static final long NOW = 1_800_000_000_000L;

    private static AdminPasscode passcode(Path dir, String code) throws Exception {
        Path f = dir.resolve(code.hashCode() + ".passcode");
        Files.writeString(f, code + "\n");
        return AdminPasscode.fromFile(f, "fts.admin.passcode_file");
    }

    @Test
    void aCommandSignedWithTheReplicasPasscodeRunsOnce(@TempDir Path dir) throws Exception {
        AdminPasscode replica = passcode(dir, "correct horse battery staple");
        AdminPasscode operator = passcode(dir, "correct horse battery staple");
        String signed = operator.sign("fts-restore=/var/lib/fts/backups/b.ftsbackup", NOW, "n1");
        assertEquals("fts-restore=/var/lib/fts/backups/b.ftsbackup", replica.verify(signed, NOW + 2_000));
        AdminPasscode.Refused again = assertThrows(AdminPasscode.Refused.class,
                () -> replica.verify(signed, NOW + 3_000));
        assertTrue(again.getMessage().contains("replayed"), again.getMessage());
    }

    @Test
    void aStrangerWithoutThePasscodeIsRefused(@TempDir Path dir) throws Exception {
        AdminPasscode replica = passcode(dir, "correct horse battery staple");
        assertTrue(assertThrows(AdminPasscode.Refused.class, () -> replica.verify("fts-backup", NOW)).getMessage()
                .contains("requires the admin passcode"));
        String wrong = passcode(dir, "another passcode entirely").sign("fts-backup", NOW, "n2");
        assertTrue(assertThrows(AdminPasscode.Refused.class, () -> replica.verify(wrong, NOW)).getMessage()
                .contains("not this replica's"));
        // a MAC taken from a captured backup does not make a restore
        String backup = passcode(dir, "correct horse battery staple").sign("fts-backup", NOW, "n3");
        String forged = "fts-restore-force=/x" + backup.substring("fts-backup".length());
        assertThrows(AdminPasscode.Refused.class, () -> replica.verify(forged, NOW));
        assertThrows(AdminPasscode.Refused.class, () -> replica.verify("fts-backup;t=1;n=2;mac=zz", NOW));
    }

    @Test
    void aCommandSignedMoreThanAMinuteFromTheReplicasClockIsRefused(@TempDir Path dir) throws Exception {
        AdminPasscode replica = passcode(dir, "correct horse battery staple");
        String old = passcode(dir, "correct horse battery staple").sign("fts-backup", NOW - 61_000, "n4");
        assertTrue(assertThrows(AdminPasscode.Refused.class, () -> replica.verify(old, NOW)).getMessage()
                .contains("more than 60 s"));
    }

    @Test
    void withoutAPasscodeCommandsAreNotSignedAndRun() throws Exception {
        AdminPasscode none = AdminPasscode.load(new Properties());
        assertEquals("fts-backup", none.sign("fts-backup", NOW, "n5"));
        assertEquals("fts-backup", none.verify("fts-backup", NOW));
    }

    @Test
    void aShortOrMissingPasscodeFileIsAStartUpErrorNamingTheKey(@TempDir Path dir) throws Exception {
        Path shortOne = dir.resolve("short");
        Files.writeString(shortOne, "secret\n");
        Properties p = new Properties();
        p.setProperty("fts.admin.passcode_file", shortOne.toString());
        assertTrue(assertThrows(ConfigException.class, () -> AdminPasscode.load(p)).getMessage()
                .contains("fts.admin.passcode_file"));
        p.setProperty("fts.admin.passcode_file", dir.resolve("missing").toString());
        assertTrue(assertThrows(ConfigException.class, () -> AdminPasscode.load(p)).getMessage()
                .contains("cannot be read"));
    }
}
