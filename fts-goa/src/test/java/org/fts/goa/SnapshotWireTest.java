package org.fts.goa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.fts.goa.intake.Membership;
import org.fts.goa.intake.ReplyCache;
import org.junit.jupiter.api.Test;

/** The state carries the group's wire version (docs/upgrades.md): installed with it, refused at one not spoken. */
class SnapshotWireTest {
    private static Snapshot.Parts parts(ExecutionRecord record) {
        return new Snapshot.Parts(new ObjectTable(null, null, 10, true), new ReplyCache(16, 60_000, 0),
                new Membership(List.of("127.0.0.1:7001")), record);
    }

    @Test
    void anInstalledStateGivesTheReplicaTheGroupsWireVersion() throws Exception {
        ExecutionRecord theirs = new ExecutionRecord();
        byte[] state = Snapshot.take(parts(theirs));
        ExecutionRecord mine = new ExecutionRecord();
        mine.wire(7);   // whatever it held before is replaced by the state's
        Snapshot.install(state, parts(mine));
        assertEquals(1, mine.wire());
    }

    @Test
    void aStateAtAWireVersionThisBuildDoesNotSpeakIsRefusedNamingBoth() throws Exception {
        ExecutionRecord theirs = new ExecutionRecord();
        theirs.wire(2);   // a group that moved on to a version this build (1 only) does not speak
        byte[] state = Snapshot.take(parts(theirs));
        ExecutionRecord mine = new ExecutionRecord();
        Snapshot.StateException e = assertThrows(Snapshot.StateException.class,
                () -> Snapshot.install(state, parts(mine)));
        assertTrue(e.getMessage().contains("wire version 2") && e.getMessage().contains("speaks wire version 1"),
                e.getMessage());
        assertEquals(1, mine.wire(), "nothing installed");
    }
}
