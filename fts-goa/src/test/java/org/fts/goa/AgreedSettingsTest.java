package org.fts.goa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import java.util.Properties;

import org.junit.jupiter.api.Test;

/** The settings a group's replicas must share: the lists compared as sets, the raft group's first members among them. */
class AgreedSettingsTest {
    private static AgreedSettings with(String key, String value) {
        Properties p = new Properties();
        p.setProperty(key, value);
        return AgreedSettings.of(p, 3);
    }

    @Test
    void theRaftGroupsFirstMembersAreAgreedAsASet() {
        AgreedSettings here = with("fts.gc.raft.members", "r0,r1,r2");
        assertEquals(here.fingerprint(), with("fts.gc.raft.members", "r2, r0,r1").fingerprint());
        AgreedSettings other = with("fts.gc.raft.members", "r2,r3,r4");
        assertNotEquals(here.fingerprint(), other.fingerprint());
        assertEquals(List.of("fts.gc.raft.members is r0,r1,r2 here, r2,r3,r4 at r5"),
                here.differences(AgreedSettings.decode(other.encode()), "r5"));
    }

    @Test
    void theVotersToo() {
        assertEquals(with("fts.group.voters", "r1,r0,r2").fingerprint(),
                with("fts.group.voters", "r0,r1,r2").fingerprint());
    }
}
