package org.fts.goa.behaviour;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Properties;

import fts_goa_test.CounterHelper;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.INITIALIZE;

/**
 * The settings a group must share (AgreedSettings): a replica started with another {@code fts.delivery} or
 * {@code fts.group.size} than the serving group's refuses to start, naming each key and both values, and the group
 * serves on; started with the group's settings, the same replica joins and serves. On the jgroups binding (the
 * local one refuses a joiner of another group configuration itself, before the adaptor's check).
 */
class SettingsAgreementInJvmTest {

    private static INITIALIZE refused(InJvmReplicas r, String key, String value) {
        Properties odd = new Properties();
        odd.setProperty(key, value);
        INITIALIZE e = assertThrows(INITIALIZE.class, () -> r.startReplica(2,
                List.of(new HelloObjImpl(), new CounterImpl(), new AccountImpl()), odd));
        // the cause says it is a refusal: the runner exits with 2, which the systemd unit does not restart
        assertTrue(e.getCause() instanceof org.fts.config.ConfigException, String.valueOf(e.getCause()));
        return e;
    }

    @Test
    void aReplicaWithAnotherDeliveryOrGroupSizeRefusesToStartNamingBothValues() throws Exception {
        Properties jgroups = new Properties();
        jgroups.setProperty("fts.gc", "jgroups");
        jgroups.setProperty("fts.jgroups.stack", "udp");
        jgroups.setProperty("fts.jgroups.mcast_port", Integer.toString(org.fts.process.Ports.freeUdp()));
        try (InJvmReplicas r = new InJvmReplicas(3, jgroups)) {
            var counter = CounterHelper.narrow(r.at(0, "counter"));
            counter.increment();
            r.stop(2);

            INITIALIZE delivery = refused(r, "fts.delivery", "agreed");
            assertTrue(delivery.getMessage().matches(".*fts\\.delivery is agreed here, uniform at r[01].*"),
                    delivery.getMessage());
            counter.increment();   // the group serves on

            INITIALIZE size = refused(r, "fts.group.size", "5");
            assertTrue(size.getMessage().matches(".*fts\\.group\\.size is 5 here, 3 at r[01].*"), size.getMessage());
            assertTrue(!size.getMessage().contains("fts.delivery"), size.getMessage());

            r.startReplica(2, List.of(new HelloObjImpl(), new CounterImpl(), new AccountImpl()), new Properties());
            counter.increment();
            var atR2 = CounterHelper.narrow(r.at(2, "counter"));
            org.fts.process.Waits.await(() -> atR2.value() == 3, java.time.Duration.ofSeconds(20),
                    () -> "r2, started with the group's settings, does not serve the counter");
            assertEquals(3, counter.value());
        }
    }
}
