package org.fts.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import org.fts.config.ConfigException;
import org.junit.jupiter.api.Test;

/** Where the replicas' logs go when {@code fts.durability.dir} is not set, and what is refused (docs/durability.md). */
class DurabilityTest {
    @Test
    void aConfiguredAbsoluteDirectoryIsTakenAsItIs() {
        assertEquals(Path.of("/srv/fts"), Durability.directory("/srv/fts", Map.of("STATE_DIRECTORY", "/var/lib/fts")));
    }

    @Test
    void unsetItIsTheServiceManagersStateDirectoryFirst() {
        assertEquals(Path.of("/var/lib/fts"), Durability.directory("",
                Map.of("STATE_DIRECTORY", "/var/lib/fts:/var/lib/other", "XDG_STATE_HOME", "/home/u/.state")));
    }

    @Test
    void unsetWithoutAServiceManagerItIsTheUsersStateDirectory() {
        assertEquals(Path.of("/home/u/.state/fts"), Durability.directory("", Map.of("XDG_STATE_HOME", "/home/u/.state")));
        Path home = Durability.directory("", Map.of());
        assertEquals(Path.of(System.getProperty("user.home"), ".local", "state", "fts"), home);
        assertTrue(home.isAbsolute());
    }

    @Test
    void aRelativeDirectoryIsRefusedNamingTheKey() {
        Properties p = new Properties();
        p.setProperty("fts.durability", "log");
        p.setProperty("fts.durability.dir", "fts-data");
        ConfigException e = assertThrows(ConfigException.class, () -> Durability.from(p));
        assertTrue(e.getMessage().contains("fts.durability.dir"), e.getMessage());
        assertThrows(ConfigException.class, () -> Durability.directory(p));
    }

    @Test
    void theLogModeResolvesTheDefaultDirectory() {
        Properties p = new Properties();
        p.setProperty("fts.durability", "log");
        assertTrue(Durability.from(p).dir().isAbsolute());
    }
}
