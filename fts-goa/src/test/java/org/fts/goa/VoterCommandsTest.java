package org.fts.goa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import org.fts.gc.GroupChannel;
import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.gc.local.LocalNetwork;
import org.fts.testing.Recorder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fts members} at a replica, on the in-JVM binding (its voters are fixed at start): listing needs no passcode,
 * a change does, and a binding that cannot change its voters says so.
 */
class VoterCommandsTest {
    private GroupChannel channel;

    @AfterEach
    void close() {
        if (channel != null) {
            channel.close();
        }
    }

    private VoterCommands joined() {
        GroupConfig voters = new GroupConfig(3, true).withVoters(Set.of("r0", "r1", "r2"));
        channel = new LocalNetwork().channel(new MemberId("r0#a1"), voters);
        channel.join("members", new Recorder());
        return new VoterCommands("r0", "members", channel);
    }

    @Test
    void theListNamesTheVotersAndTheLearnersOfTheView() {
        Map<String, String> list = joined().command(VoterCommands.LIST);
        assertEquals(Map.of("members.voters", "r0,r1,r2", "members.size", "3", "members.learners", "",
                "members.view", "r0"), list);
    }

    @Test
    void aChangeWithoutThePasscodeIsRefusedAndOneWithItMeetsTheBindingsAnswer(@TempDir Path dir) throws Exception {
        VoterCommands commands = joined();
        Path file = dir.resolve("admin.passcode");
        Files.writeString(file, "correct horse battery staple\n");
        AdminPasscode passcode = AdminPasscode.fromFile(file, "fts.admin.passcode_file");
        commands.passcode(passcode);
        // the list as the command line sends it (unsigned, naming who asks) needs no passcode
        String list = AdminPasscode.none().sign(VoterCommands.LIST, "members", "r0", System.currentTimeMillis(), "n0");
        assertEquals("r0,r1,r2", commands.command(list).get("members.voters"), list);
        String unsigned = commands.command("fts-members-add=r3").get("members.error");
        assertTrue(unsigned.startsWith("refused: this replica requires the admin passcode"), unsigned);
        String signed = passcode.sign("fts-members-add=r3", "members", "r0", System.currentTimeMillis(), "n1");
        String binding = commands.command(signed).get("members.error");
        assertTrue(binding.contains("voters are fixed at start (r0,r1,r2)"), binding);
        String badId = commands.command(passcode.sign("fts-members-add=r3#x", "members", "r0",
                System.currentTimeMillis(), "n2")).get("members.error");
        assertTrue(badId.contains("a replica id, such as r3"), badId);
        assertNull(commands.command("fts-backup"));   // not this handler's
    }
}
