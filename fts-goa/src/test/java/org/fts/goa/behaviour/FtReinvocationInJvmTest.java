package org.fts.goa.behaviour;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import fts_goa_test.Counter;
import fts_goa_test.CounterHelper;
import org.fts.ft.FtConstants;
import org.fts.ft.FtRequestContext;
import org.fts.process.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.COMM_FAILURE;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.LocalObject;
import org.omg.CORBA.NO_PERMISSION;
import org.omg.CORBA.ORB;
import org.omg.PortableInterceptor.ClientRequestInfo;
import org.omg.PortableInterceptor.ClientRequestInterceptor;
import org.omg.PortableInterceptor.LOCATION_FORWARD;
import org.omg.PortableInterceptor.ORBInitInfo;
import org.omg.PortableInterceptor.ORBInitializer;

/**
 * Exactly-once across a redirect, without a clock (docs/failover.md, rule 1): a reinvocation keeps its request's
 * retention id however late it comes, and a new request never takes an earlier one's. Faults come from two
 * test-only client interceptors around the FTS one, which JacORB orders by name: {@code zzz-test-lose-reply}
 * sees replies first and can turn one into {@code COMM_FAILURE} (the reply of an executed request is lost, as
 * when its replica dies), and {@code aaa-test-stall} sees a request after the FTS interceptor forwarded it and
 * sees its reinvocation before the FTS interceptor does, so it can stall the reinvocation or fail it.
 */
class FtReinvocationInJvmTest {
    /** Replies still to lose. */
    static final AtomicInteger LOSE_REPLIES = new AtomicInteger();
    /** How long to stall after a forward, before the reinvocation, in ms. */
    static final AtomicInteger STALL_MS = new AtomicInteger();
    /** Whether to fail the reinvocation that follows the next forward, before the FTS interceptor sees it. */
    static final AtomicBoolean FAIL_REINVOCATION = new AtomicBoolean();
    /** The FT_REQUEST retention id of every request sent, in order. */
    static final List<Integer> SENT = new CopyOnWriteArrayList<>();

    private InJvmReplicas replicas;
    private ORB orb;
    private Counter counter;

    /** Registers the two test interceptors (named to sort before and after {@code fts-ft-client}). */
    public static final class Faults extends LocalObject implements ORBInitializer {
        @Override
        public void pre_init(ORBInitInfo info) {
            try {
                info.add_client_request_interceptor(new LoseReply());
                info.add_client_request_interceptor(new Stall());
            } catch (org.omg.PortableInterceptor.ORBInitInfoPackage.DuplicateName e) {
                throw new org.omg.CORBA.INITIALIZE(e.toString());
            }
        }

        @Override
        public void post_init(ORBInitInfo info) {
        }
    }

    /** Receive points run in reverse name order: this one sees every reply before the FTS interceptor. */
    static final class LoseReply extends Quiet {
        @Override
        public String name() {
            return "zzz-test-lose-reply";
        }

        @Override
        public void send_request(ClientRequestInfo ri) {
            SENT.add(FtRequestContext.decode(ri.get_request_service_context(FtConstants.FT_REQUEST).context_data)
                    .retentionId());
        }

        @Override
        public void receive_reply(ClientRequestInfo ri) {
            if (LOSE_REPLIES.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new COMM_FAILURE("test: reply lost", 0, CompletionStatus.COMPLETED_MAYBE);
            }
        }
    }

    /** Sees a forward after the FTS interceptor raised it, and the reinvocation before the FTS interceptor. */
    static final class Stall extends Quiet {
        private final AtomicBoolean failNext = new AtomicBoolean();

        @Override
        public String name() {
            return "aaa-test-stall";
        }

        @Override
        public void receive_other(ClientRequestInfo ri) {
            if (ri.reply_status() != LOCATION_FORWARD.value) {
                return;
            }
            failNext.set(FAIL_REINVOCATION.getAndSet(false));
            int ms = STALL_MS.get();
            if (ms > 0) {
                try {
                    Thread.sleep(ms);   // the fault under test: a GC pause or a starved CPU, not a synchronisation
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void send_request(ClientRequestInfo ri) {
            if (failNext.getAndSet(false)) {
                throw new NO_PERMISSION("test: the reinvocation fails before it is sent", 0,
                        CompletionStatus.COMPLETED_NO);
            }
        }
    }

    abstract static class Quiet extends LocalObject implements ClientRequestInterceptor {
        @Override
        public void send_request(ClientRequestInfo ri) {
        }

        @Override
        public void send_poll(ClientRequestInfo ri) {
        }

        @Override
        public void receive_reply(ClientRequestInfo ri) {
        }

        @Override
        public void receive_exception(ClientRequestInfo ri) {
        }

        @Override
        public void receive_other(ClientRequestInfo ri) {
        }

        @Override
        public void destroy() {
        }
    }

    @BeforeEach
    void start() throws Exception {
        LOSE_REPLIES.set(0);
        STALL_MS.set(0);
        FAIL_REINVOCATION.set(false);
        SENT.clear();
        replicas = new InJvmReplicas(3);
        Properties p = InJvmReplicas.orbProps();
        p.putAll(Clients.ftDefaults());
        p.setProperty("org.omg.PortableInterceptor.ORBInitializerClass." + Faults.class.getName(), "");
        orb = ORB.init(new String[0], p);
        String iogr = replicas.orbs.get(0).object_to_string(
                replicas.goas.get(0).id_to_reference("counter".getBytes(StandardCharsets.UTF_8)));
        counter = CounterHelper.narrow(orb.string_to_object(iogr));
    }

    @AfterEach
    void stop() {
        if (orb != null) {
            orb.shutdown(false);
        }
        if (replicas != null) {
            replicas.close();
        }
    }

    /** Waits until every replica's counter is {@code expected} (replicas other than the origin may lag). */
    private void awaitEveryReplicaAt(int expected) {
        for (int i = 0; i < 3; i++) {
            CounterImpl c = (CounterImpl) replicas.servants.get(i).get(1);
            Waits.await(() -> c.valueNow() >= expected, Duration.ofSeconds(10),
                    () -> "a replica's counter at " + expected + ", it is " + c.valueNow());
            assertEquals(expected, c.valueNow(), "executed exactly as often as called");
        }
    }

    /** The replicas' {@code attribute} (a ReplicaMXBean counter) summed over this JVM's replicas. */
    private static long replicas(String attribute) {
        javax.management.MBeanServer mbs = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        long sum = 0;
        try {
            for (javax.management.ObjectName on : mbs.queryNames(new javax.management.ObjectName(
                    "org.fts:type=Replica,*"), null)) {
                sum += (Long) mbs.getAttribute(on, attribute);
            }
        } catch (javax.management.JMException e) {
            throw new IllegalStateException(e);
        }
        return sum;
    }

    @Test
    void aReinvocationStalledLongerThanASecondAfterItsForwardStillExecutesOnce() {
        int before = counter.increment();
        long fromCache = replicas("RequestsAnsweredFromCache");
        long ordered = replicas("RequestsOrdered");
        SENT.clear();
        LOSE_REPLIES.set(1);
        STALL_MS.set(1500);
        long t0 = System.nanoTime();
        int value = counter.increment();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms >= 1500, "the reinvocation was stalled (" + ms + " ms)");
        assertEquals(0, LOSE_REPLIES.get(), "the first reply was lost");
        assertEquals(before + 1, value, "the reinvocation gets the reply of the one execution");
        awaitEveryReplicaAt(before + 1);
        assertOneRequest(SENT);
        // the metrics' request outcomes (docs/metrics.md): the call was ordered, its reinvocation (1.5 s later, long
        // after the execution) answered from the reply cache; each send that arrived is one or the other
        long orderedNow = replicas("RequestsOrdered") - ordered;
        long fromCacheNow = replicas("RequestsAnsweredFromCache") - fromCache;
        assertTrue(orderedNow >= 1 && fromCacheNow >= 1, "ordered " + orderedNow + ", from the cache " + fromCacheNow);
        assertTrue(orderedNow + fromCacheNow <= SENT.size(), "no more outcomes than sends: " + orderedNow + " + "
                + fromCacheNow + " against " + SENT);
        int sent = SENT.size();
        assertEquals(before + 2, counter.increment(), "and the next call is a new request");
        assertFalse(SENT.subList(sent, SENT.size()).contains(SENT.get(0)), SENT.toString());
    }

    @Test
    void aReinvocationAfterAFailedSendKeepsItsIdHoweverLateItComes() {
        // Without its alternate addresses: with them, JacORB connects to another replica by itself when the
        // first profile's is down (docs/deployment.md), and no send fails. This test is about the FT client's
        // reinvocation after one does.
        org.fts.ft.Ior full = org.fts.ft.Ior.parse(orb.object_to_string(counter));
        counter = CounterHelper.narrow(orb.string_to_object(new org.fts.ft.Ior(full.typeId(), full.profiles().stream()
                .map(p -> org.fts.ft.Ior.Iiop.decode(p.data()).without(org.fts.ft.Ior.TAG_ALTERNATE_IIOP_ADDRESS)
                        .profile()).toList()).stringify()));
        int before = counter.increment();
        replicas.stop(0);   // the reference's first profile: the next attempt fails to connect (TRANSIENT)
        SENT.clear();
        STALL_MS.set(1500);
        long t0 = System.nanoTime();
        assertEquals(before + 1, counter.increment());
        assertTrue(System.nanoTime() - t0 >= 1_500_000_000L, "the reinvocation was stalled");
        assertOneRequest(SENT);
    }

    /**
     * The sends of one call: a first attempt and at least one reinvocation, all with the same retention id.
     * (JacORB may send once more by itself within the call, e.g. when the connection it chose was closed under
     * it: that is the same invocation, so the same request.)
     */
    private static void assertOneRequest(List<Integer> sent) {
        assertTrue(sent.size() >= 2, "a first attempt and its reinvocation: " + sent);
        assertEquals(1, sent.stream().distinct().count(), "every attempt repeats the retention id: " + sent);
    }

    @Test
    void aNewRequestAfterAForwardedRequestThatEndedBeforeItsReinvocationIsNotTakenForIt() {
        int before = counter.increment();
        SENT.clear();
        LOSE_REPLIES.set(1);
        FAIL_REINVOCATION.set(true);
        assertThrows(NO_PERMISSION.class, counter::increment, "the forwarded request ends before its reinvocation");
        int first = SENT.size();
        awaitEveryReplicaAt(before + 1);   // it did execute once; only its reply was lost
        int value = counter.increment();   // at once, on the same thread, same object and operation
        assertTrue(SENT.size() > first, SENT.toString());
        assertFalse(SENT.subList(first, SENT.size()).contains(SENT.get(0)), "a new request has a new retention id: "
                + SENT);
        assertEquals(before + 2, value, "the new request executed: it did not get the earlier request's reply");
        awaitEveryReplicaAt(before + 2);
    }
}
