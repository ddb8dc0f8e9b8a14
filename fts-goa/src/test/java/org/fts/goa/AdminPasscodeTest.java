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
        // a path that holds the signature's own markers still parses: the fields are read from the end
        String path = "fts-restore=/var/lib/fts/backups/b;t=1;n=2;mac=3.ftsbackup";
        String signed = operator.sign(path, "bank", "r1", NOW, "n1");
        assertEquals(path, replica.verify(signed, "bank", "r1", NOW + 2_000));
        AdminPasscode.Refused again = assertThrows(AdminPasscode.Refused.class,
                () -> replica.verify(signed, "bank", "r1", NOW + 3_000));
        assertTrue(again.getMessage().contains("replayed"), again.getMessage());
    }

    @Test
    void aStrangerWithoutThePasscodeIsRefused(@TempDir Path dir) throws Exception {
        AdminPasscode replica = passcode(dir, "correct horse battery staple");
        assertTrue(assertThrows(AdminPasscode.Refused.class, () -> replica.verify("fts-backup", "bank", "r1", NOW))
                .getMessage().contains("requires the admin passcode"));
        String wrong = passcode(dir, "another passcode entirely").sign("fts-backup", "bank", "r1", NOW, "n2");
        assertTrue(assertThrows(AdminPasscode.Refused.class, () -> replica.verify(wrong, "bank", "r1", NOW))
                .getMessage().contains("not this replica's"));
        // a MAC taken from a captured backup does not make a restore
        String backup = passcode(dir, "correct horse battery staple").sign("fts-backup", "bank", "r1", NOW, "n3");
        String forged = "fts-restore-force=/x" + backup.substring("fts-backup".length());
        assertThrows(AdminPasscode.Refused.class, () -> replica.verify(forged, "bank", "r1", NOW));
        assertThrows(AdminPasscode.Refused.class,
                () -> replica.verify("fts-backup;g=bank;r=r1;t=1;n=2;mac=zz", "bank", "r1", NOW));
    }

    @Test
    void aCommandSignedForOneReplicaRunsAtNoOtherNorInAnotherGroup(@TempDir Path dir) throws Exception {
        AdminPasscode shared = passcode(dir, "correct horse battery staple");
        String forR1 = passcode(dir, "correct horse battery staple").sign("fts-restore-force=/b.ftsbackup", "bank",
                "r1", NOW, "n6");
        assertTrue(assertThrows(AdminPasscode.Refused.class, () -> shared.verify(forR1, "bank", "r2", NOW))
                .getMessage().contains("signed for replica r1 of group bank"));
        assertThrows(AdminPasscode.Refused.class, () -> shared.verify(forR1, "audit", "r1", NOW));
    }

    @Test
    void aCommandSignedMoreThanAMinuteFromTheReplicasClockIsRefused(@TempDir Path dir) throws Exception {
        AdminPasscode replica = passcode(dir, "correct horse battery staple");
        String old = passcode(dir, "correct horse battery staple").sign("fts-backup", "bank", "r1", NOW - 61_000, "n4");
        assertTrue(assertThrows(AdminPasscode.Refused.class, () -> replica.verify(old, "bank", "r1", NOW))
                .getMessage().contains("more than 60 s"));
    }

    @Test
    void withoutAPasscodeCommandsAreNotSignedAndRunSignedOnesIncluded(@TempDir Path dir) throws Exception {
        AdminPasscode none = AdminPasscode.load(new Properties());
        assertEquals("fts-backup;u=ops@h", none.sign("fts-backup", "bank", "r1", NOW, "n5", "ops@h"));
        assertEquals("fts-backup", none.verify(none.sign("fts-backup", "bank", "r1", NOW, "n5"), "bank", "r1", NOW));
        assertEquals("fts-backup", none.verify("fts-backup", "bank", "r1", NOW));
        // an operator who signs before every replica has the passcode (a rollout): the command runs as unsigned
        String signed = passcode(dir, "correct horse battery staple").sign("fts-restore=/b.ftsbackup", "bank", "r1",
                NOW, "n7");
        assertEquals("fts-restore=/b.ftsbackup", none.verify(signed, "bank", "r1", NOW));
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

    /** A command names who asked (the replica logs it with what it did); changing the name breaks the signature. */
    @Test
    void aCommandNamesWhoAskedAndTheNameIsSigned(@TempDir Path dir) throws Exception {
        AdminPasscode replica = passcode(dir, "correct horse battery staple");
        String signed = passcode(dir, "correct horse battery staple").sign("fts-backup", "bank", "r1", NOW, "n9",
                "alice@ops-1");
        String forged = signed.replace("u=alice@ops-1", "u=bob@ops-1__");
        assertThrows(AdminPasscode.Refused.class, () -> replica.accept(forged, "bank", "r1", NOW));
        assertEquals(new AdminPasscode.Command("fts-backup", "alice@ops-1"), replica.accept(signed, "bank", "r1", NOW));
        // without a passcode the name travels too (unsigned); a bare key, sent by hand, is "unknown"
        AdminPasscode open = AdminPasscode.none();
        assertEquals(new AdminPasscode.Command("fts-backup", "carol@h"),
                open.accept(open.sign("fts-backup", "bank", "r1", NOW, "n", "carol@h"), "bank", "r1", NOW));
        assertEquals(new AdminPasscode.Command("fts-backup", "unknown"), open.accept("fts-backup", "bank", "r1", NOW));
        // a name cannot end its field: separators become '_'
        assertEquals("eve_u_x@h", open.accept(open.sign("fts-backup", "g", "r", NOW, "n", "eve;u=x@h"), "g", "r", NOW)
                .who());
        assertTrue(AdminPasscode.operator().contains("@"), AdminPasscode.operator());
    }

    /** A key signed before commands named who asked still verifies (who: unknown); a path holding ";u=" is no name. */
    @Test
    void aSignedKeyWithoutAName(@TempDir Path dir) throws Exception {
        AdminPasscode replica = passcode(dir, "correct horse battery staple");
        String body = "fts-backup;g=bank;r=r1;t=" + NOW + ";n=n10";
        javax.crypto.Mac hmac = javax.crypto.Mac.getInstance("HmacSHA256");
        hmac.init(new javax.crypto.spec.SecretKeySpec("correct horse battery staple".getBytes(
                java.nio.charset.StandardCharsets.UTF_8), "HmacSHA256"));
        String old = body + ";mac=" + java.util.HexFormat.of().formatHex(hmac.doFinal(
                body.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertEquals(new AdminPasscode.Command("fts-backup", "unknown"), replica.accept(old, "bank", "r1", NOW));
        AdminPasscode open = AdminPasscode.none();
        assertEquals("fts-restore=/b;u=x/y.ftsbackup",
                open.accept("fts-restore=/b;u=x/y.ftsbackup", "bank", "r1", NOW).text());
    }
}
