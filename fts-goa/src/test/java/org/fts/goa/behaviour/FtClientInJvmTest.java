package org.fts.goa.behaviour;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;

import fts_goa_test.HelloObj;
import fts_goa_test.HelloObjHelper;
import org.fts.goa.GroupReference;
import org.fts.process.Waits;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;

/** The FTS client interceptor against in-JVM replicas on real sockets: membership refresh, expiry, config. */
class FtClientInJvmTest {
    private static ORB ftClient(String... keyValues) {
        Properties p = InJvmReplicas.orbProps();
        p.putAll(Clients.ftDefaults());
        p.setProperty("jacorb.iiop.enable_loopback", "off");
        for (int i = 0; i < keyValues.length; i += 2) {
            p.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return ORB.init(new String[0], p);
    }

    private static String iogr(InJvmReplicas r, int via, String id) throws Exception {
        return r.orbs.get(via).object_to_string(r.goas.get(via).id_to_reference(id.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aReplicaAddedLaterBecomesARedirectTargetThroughTheGroupVersionOnReplies() throws Exception {
        try (InJvmReplicas r = new InJvmReplicas(2)) {
            ORB orb = ftClient("fts.client.request_duration", "5s");
            try {
                HelloObj hello = HelloObjHelper.narrow(orb.string_to_object(iogr(r, 0, "hello")));   // names r0, r1
                hello.set("before");
                int added = r.addReplica();
                Waits.await(() -> r.goas.get(0).referenceVersion().version() == 2, Duration.ofSeconds(10),
                        () -> "r0 did not add the new replica: " + r.goas.get(0).referenceVersion());
                GroupReference v2 = r.goas.get(0).referenceVersion();
                assertTrue(v2.endpoints().stream().anyMatch(e -> e.endsWith(":" + r.port(added))), v2::toString);
                hello.set("learns v2");   // the reply carries FT_GROUP_VERSION 2 and the new reference
                // r0 stops; r1 stays in the group (so that it keeps a majority of N=2 with the added replica) but
                // turns clients away (TRANSIENT): the client reaches the added replica only if it learnt the list.
                r.stop(0);
                r.goas.get(1).the_POAManager().discard_requests(false);
                hello.set("after");
                assertEquals("after", hello.get());
            } finally {
                orb.shutdown(false);
            }
        }
    }

    @Test
    void whenNoReplicaAnswersTheCallFailsClearlyAtItsExpirationNotAHang() throws Exception {
        String ref;
        try (InJvmReplicas r = new InJvmReplicas(2)) {
            ref = iogr(r, 0, "hello");
        }
        ORB orb = ftClient("fts.client.request_duration", "1s");
        try {
            HelloObj hello = HelloObjHelper.narrow(orb.string_to_object(ref));
            org.omg.CORBA.SystemException e = assertTimeoutPreemptively(Duration.ofSeconds(30),
                    () -> assertThrows(org.omg.CORBA.SystemException.class, () -> hello.set("nobody")));
            assertTrue(e instanceof org.omg.CORBA.TRANSIENT || e instanceof org.omg.CORBA.COMM_FAILURE, e.toString());
        } finally {
            orb.shutdown(false);
        }
    }

    @Test
    void aBadClientKeyFailsOrbInitNamingTheKey() {
        org.omg.CORBA.INITIALIZE e = assertThrows(org.omg.CORBA.INITIALIZE.class,
                () -> ftClient("fts.client.reply_timeout", "soon"));
        assertTrue(e.getMessage().contains("fts.client.reply_timeout"), e.getMessage());
    }

    @Test
    void withoutFailOnErrorABadClientKeyFailsEveryCallNamingTheKeyRatherThanRunningWithoutFailover()
            throws Exception {
        try (InJvmReplicas r = new InJvmReplicas(1)) {
            ORB orb = ftClient("fts.client.request_duration", "-1s", "jacorb.orb_initializer.fail_on_error", "off");
            try {
                HelloObj hello = HelloObjHelper.narrow(orb.string_to_object(iogr(r, 0, "hello")));
                org.omg.CORBA.INITIALIZE e = assertThrows(org.omg.CORBA.INITIALIZE.class, () -> hello.set("x"));
                assertTrue(e.getMessage().contains("fts.client.request_duration"), e.getMessage());
            } finally {
                orb.shutdown(false);
            }
        }
    }
}
