package org.fts.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;

import org.fts.config.ConfigException;
import org.fts.config.ConfigKey;
import org.fts.config.Durations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Misconfiguration fails at creation with an error naming the key; durations parse with units. */
class ConfigurationTest {
    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    private static void assertRejected(String key, String... kv) {
        ConfigException e = assertThrows(ConfigException.class, () -> GroupChannels.create(props(kv), "x").close());
        assertEquals(key, e.key());
        assertTrue(e.getMessage().contains(key), e.getMessage());
    }

    @Test
    void badValuesNameTheirKey() {
        assertRejected("fts.gc", "fts.gc", "carrier-pigeon");
        assertRejected("fts.jgroups.mcast_port", "fts.jgroups.mcast_port", "abc");
        assertRejected("fts.jgroups.mcast_port", "fts.jgroups.mcast_port", "70000");
        assertRejected("fts.jgroups.mcast_ttl", "fts.jgroups.mcast_ttl", "256");
        assertRejected("fts.jgroups.stack", "fts.jgroups.stack", "/no/such/stack.xml");
        assertRejected("fts.gc.local.delay", "fts.gc", "local", "fts.gc.local.delay", "5");
    }

    @Test
    void aStackWithSequencerOrWithoutReliableChannelsIsRejected(@TempDir Path dir) throws Exception {
        Path withSequencer = dir.resolve("seq.xml");
        Files.writeString(withSequencer, "<config><UDP/><pbcast.NAKACK2/><UNICAST3/><pbcast.GMS/><SEQUENCER/></config>");
        ConfigException e = assertThrows(ConfigException.class,
                () -> GroupChannels.create(props("fts.jgroups.stack", withSequencer.toString()), "x"));
        assertTrue(e.getMessage().contains("SEQUENCER"), e.getMessage());
        Path unreliable = dir.resolve("bare.xml");
        Files.writeString(unreliable, "<config><UDP/><PING/><pbcast.GMS/></config>");
        e = assertThrows(ConfigException.class,
                () -> GroupChannels.create(props("fts.jgroups.stack", unreliable.toString()), "x"));
        assertTrue(e.getMessage().contains("NAKACK2"), e.getMessage());
    }

    @Test
    void durationsNeedAUnitAndRoundTrip() {
        assertEquals(Duration.ofNanos(250_000), Durations.parse("250us"));
        assertEquals(Duration.ofNanos(250_000), Durations.parse("250µs"));
        assertEquals(Duration.ofMillis(1500), Durations.parse("1.5s"));
        assertEquals(Duration.ZERO, Durations.parse("0"));
        assertThrows(IllegalArgumentException.class, () -> Durations.parse("500"));
        assertThrows(IllegalArgumentException.class, () -> Durations.parse("5 parsecs"));
        for (String s : new String[] {"250us", "2ms", "3s", "1m", "17ns"}) {
            assertEquals(s, Durations.format(Durations.parse(s)));
        }
    }

    @Test
    void requiredKeysAndRangesAreEnforced() {
        ConfigKey<String> required = ConfigKey.string("fts.test.required", null, "a required key");
        ConfigException e = assertThrows(ConfigException.class, () -> required.get(new Properties()));
        assertTrue(e.getMessage().contains("fts.test.required is required"), e.getMessage());
        ConfigKey<Integer> ranged = ConfigKey.integer("fts.test.n", 5, 1, 10, "count", "a number");
        assertEquals(5, ranged.get(new Properties()));
        assertEquals(7, ranged.get(props("fts.test.n", " 7 ")));
        assertThrows(ConfigException.class, () -> ranged.get(props("fts.test.n", "0")));
        assertThrows(IllegalArgumentException.class, () -> ConfigKey.string("gc.outside", "x", "not under fts."));
    }
}
