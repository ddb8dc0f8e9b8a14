package org.fts.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

import org.fts.config.ConfigKey;
import org.fts.config.ConfigKeys;
import org.fts.config.ConfigReference;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The shipped configuration (the archive's config/, docs/deployment.md) names only real keys, with values that
 * pass their validation, and wires the adaptor and the client the way the code expects.
 */
class ExampleConfigTest {
    private static Properties load(String name) throws Exception {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of("src", "dist", "config", name), StandardCharsets.UTF_8)) {
            p.load(r);
        }
        return p;
    }

    private static void assertValid(Properties p) {
        assertEquals(List.of(), ConfigKeys.checkNames(LoggerFactory.getLogger(ExampleConfigTest.class), p),
                "unknown fts.* keys");
        for (ConfigKey<?> key : ConfigReference.allKeys()) {
            if (key.isSet(p)) {
                key.get(p);   // throws ConfigException naming the key if the value is invalid
            }
        }
    }

    @Test
    void theReplicaExampleIsValidAndRegistersTheAdaptor() throws Exception {
        Properties p = load("fts.properties");
        assertValid(p);
        org.fts.goa.GoaConfig.from(p, LoggerFactory.getLogger(ExampleConfigTest.class));   // the keys together
        assertTrue(p.containsKey("org.omg.PortableInterceptor.ORBInitializerClass."
                + org.fts.goa.GroupPOAInitializer.class.getName()));
        assertEquals(org.fts.goa.giop.GuardedServerSocketFactory.class.getName(),
                p.getProperty(org.fts.goa.giop.GiopGuard.SERVER_SOCKET_FACTORY));
        String bind = p.getProperty("fts.jgroups.bind_addr");
        assertEquals(bind, p.getProperty("OAIAddr"), "IIOP and JGroups bind to the host's one address");
        assertTrue(p.getProperty("fts.replicas").contains(bind + ":" + p.getProperty("OAPort")),
                "fts.replicas names this replica's endpoint");
        assertTrue(p.getProperty("fts.jgroups.initial_hosts").contains(bind + "["));
    }

    @Test
    void theClientExampleIsValidAndTurnsFailoverOn() throws Exception {
        Properties p = load("client.properties");
        assertValid(p);
        assertTrue(p.containsKey("org.omg.PortableInterceptor.ORBInitializerClass."
                + org.fts.ft.client.FtClientInitializer.class.getName()));
    }
}
