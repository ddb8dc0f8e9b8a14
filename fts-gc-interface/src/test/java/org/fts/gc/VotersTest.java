package org.fts.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The one-change-at-a-time rules every binding applies before it orders a change of the voters. */
class VotersTest {
    private static View view(String... replicas) {
        List<MemberId> members = java.util.Arrays.stream(replicas).map(r -> new MemberId(r + "#a1")).toList();
        return new View(7, members, members.get(0));
    }

    private static final Voters THREE = Voters.of(List.of("r0", "r1", "r2"));

    @Test
    void aLearnerInTheViewIsAddedAndAVoterRemovedWhileAMajorityOfTheNewVotersIsPresent() {
        assertNull(THREE.refusal(new VoterChange(true, "r3"), view("r0", "r1", "r2", "r3")));
        assertEquals("r0,r1,r2,r3", THREE.after(new VoterChange(true, "r3")).toString());
        assertEquals(3, THREE.after(new VoterChange(true, "r3")).majority());
        // r2 dead: removing it leaves r0, r1 of r0, r1
        assertNull(THREE.refusal(new VoterChange(false, "r2"), view("r0", "r1")));
        // r2 dead, r3 a learner: adding r3 makes three of four present
        assertNull(THREE.refusal(new VoterChange(true, "r3"), view("r0", "r1", "r3")));
    }

    @Test
    void whatWouldBreakAMajorityOrNamesNoSuchReplicaIsRefusedWithItsReason() {
        assertTrue(THREE.refusal(new VoterChange(true, "r3"), view("r0", "r1", "r2")).contains("r3 is not in the "
                + "view"));
        assertTrue(THREE.refusal(new VoterChange(true, "r1"), view("r0", "r1", "r2")).contains("a voter already"));
        assertTrue(THREE.refusal(new VoterChange(false, "r9"), view("r0", "r1", "r2")).contains("r9 is not a voter"));
        // r2 dead: removing r1 leaves r0 of r0, r2
        String why = THREE.refusal(new VoterChange(false, "r1"), view("r0", "r1"));
        assertTrue(why.contains("1 of the 2 voters") && why.contains("a majority needs 2"), why);
        // r1 and r2 dead (no majority anyway): adding r3 makes two of four
        assertTrue(THREE.refusal(new VoterChange(true, "r3"), view("r0", "r3")).contains("2 of the 4 voters"));
        assertTrue(Voters.of(List.of("r0")).refusal(new VoterChange(false, "r0"), view("r0")).contains("last voter"));
        assertTrue(new Voters(java.util.Set.of(), 3).refusal(new VoterChange(true, "r3"), view("r0", "r3"))
                .contains("every replica votes"));
    }

    @Test
    void incarnationsOfOneReplicaCountOnceAndIdsAreChecked() {
        View v = new View(3, List.of(new MemberId("r0#a"), new MemberId("r0#b"), new MemberId("r5#c")),
                new MemberId("r0#a"));
        assertEquals(1, THREE.count(v.members()));
        assertThrows(IllegalArgumentException.class, () -> new VoterChange(true, "r3#abc"));
        assertThrows(IllegalArgumentException.class, () -> new VoterChange(false, " "));
    }
}
