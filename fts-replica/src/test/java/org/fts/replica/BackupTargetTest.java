package org.fts.replica;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.Test;

/**
 * Which replica {@code fts backup} and {@code fts restore} send their command to: the backup is written to, and the
 * restore reads from, that replica's {@code fts.backup.dir} on its host, so the command goes to the replica on the
 * host it runs on, not to the first in the configuration's host order.
 */
class BackupTargetTest {
    private static Status.Found replica(String host, String id, boolean serving) {
        return new Status.Found(host, 7500, Map.of("id", id, "serving", serving ? "yes" : "no: recovering"));
    }

    private static final List<Status.Found> GROUP = List.of(replica("10.0.0.11", "r1", true),
            replica("10.0.0.12", "r2", true), replica("10.0.0.13", "r3", true));

    @Test
    void theReplicaItsConfigurationNamesFirst() {
        Properties mine = new Properties();
        mine.setProperty("fts.replica.id", "r3");
        assertEquals("r3", BackupCommand.choose(GROUP, mine, h -> h.equals("10.0.0.12")).fields().get("id"));
    }

    @Test
    void elseTheReplicaOnThisHostNotTheFirstInHostOrder() {
        assertEquals("r2", BackupCommand.choose(GROUP, new Properties(), h -> h.equals("10.0.0.12")).fields()
                .get("id"));
    }

    @Test
    void elseTheFirstThatServes() {
        List<Status.Found> group = List.of(replica("10.0.0.11", "r1", false), replica("10.0.0.12", "r2", true));
        Properties mine = new Properties();
        mine.setProperty("fts.replica.id", "r1");   // named, but it does not serve
        assertEquals("r2", BackupCommand.choose(group, mine, h -> false).fields().get("id"));
        assertNull(BackupCommand.choose(List.of(replica("10.0.0.11", "r1", false)), mine, h -> true));
    }

    @Test
    void aLoopbackAddressIsThisHost() {
        assertEquals(true, BackupCommand.isThisHost("127.0.0.3"));
        assertEquals(false, BackupCommand.isThisHost("192.0.2.1"));   // TEST-NET-1: no interface has it
    }
}
