package org.fts.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Properties;
import java.util.Set;

import org.fts.config.ConfigException;
import org.junit.jupiter.api.Test;

/** {@code fts.group.voters}: who counts toward majorities, and the start-up errors that name the key. */
class GroupVotersTest {
    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    @Test
    void votersSetNAndOnlyTheyAreCounted() {
        GroupConfig c = GroupConfig.from(props("fts.group.voters", "r0,r1,r2"));
        assertEquals(3, c.groupSize());
        assertEquals(Set.of("r0", "r1", "r2"), c.voters());
        assertTrue(c.votes("r1"));
        assertFalse(c.votes("r3"), "any other id is a learner");
        List<MemberId> view = List.of(new MemberId("r0#a"), new MemberId("r0#b"), new MemberId("r3#c"),
                new MemberId("r1#d"));
        assertEquals(2, c.voters(view), "distinct voting replicas: r0 (twice) and r1; r3 is a learner");
        assertEquals(2, c.majority(view));
    }

    @Test
    void withoutVotersEveryReplicaCounts() {
        GroupConfig c = GroupConfig.from(props("fts.group.size", "3"));
        assertTrue(c.votes("anyone"));
        assertEquals(3, c.voters(List.of(new MemberId("x"), new MemberId("y"), new MemberId("z"))));
    }

    @Test
    void aSizeOtherThanTheVotersNumberOrAnIdNamedTwiceIsRefusedNamingTheKey() {
        ConfigException size = assertThrows(ConfigException.class,
                () -> GroupConfig.from(props("fts.group.voters", "r0,r1,r2", "fts.group.size", "5")));
        assertTrue(size.getMessage().contains("fts.group.voters") && size.getMessage().contains("fts.group.size is 5"),
                size.getMessage());
        ConfigException twice = assertThrows(ConfigException.class,
                () -> GroupConfig.from(props("fts.group.voters", "r0,r1,r0")));
        assertTrue(twice.getMessage().contains("fts.group.voters") && twice.getMessage().contains("twice"),
                twice.getMessage());
        assertEquals(3, GroupConfig.from(props("fts.group.voters", "r0,r1,r2", "fts.group.size", "3")).groupSize());
    }
}
