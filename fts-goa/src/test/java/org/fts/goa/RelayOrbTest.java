package org.fts.goa;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Properties;

import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;

/**
 * An outcall relay's private ORB ({@link Outcalls}) sees the JVM's {@code jacorb.properties} and system properties
 * too. If they register the adaptor's initializer, that ORB must not become a second replica of the group: the
 * initializer skips it, and without the mark it would have tried (and failed here, with no replica id).
 */
class RelayOrbTest {
    private static Properties props(boolean relay) {
        Properties p = new Properties();
        p.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        p.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        p.setProperty("jacorb.log.default.verbosity", "0");
        p.setProperty("OAIAddr", "127.0.0.1");
        p.setProperty("jacorb.orb_initializer.fail_on_error", "on");
        p.setProperty("org.omg.PortableInterceptor.ORBInitializerClass." + GroupPOAInitializer.class.getName(), "");
        if (relay) {
            p.setProperty(Jacorb.RELAY_ORB, "true");
        }
        return p;
    }

    @Test
    void theAdaptorsInitializerSkipsARelaysOrb() throws Exception {
        ORB relay = ORB.init(new String[0], props(true));
        try {
            assertThrows(org.omg.CORBA.ORBPackage.InvalidName.class,
                    () -> relay.resolve_initial_references(GroupPOAInitializer.INITIAL_REFERENCE));
            assertThrows(org.omg.CORBA.ORBPackage.InvalidName.class,
                    () -> relay.resolve_initial_references(OutcallInterceptor.INITIAL_REFERENCE));
        } finally {
            relay.shutdown(false);
        }
        assertThrows(RuntimeException.class, () -> ORB.init(new String[0], props(false)).shutdown(false),
                "without the mark the initializer makes an adaptor (here it fails: no fts.replica.id)");
    }
}
