package org.fts.ft.client;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.fts.ft.Cdr;
import org.fts.ft.FtConstants;
import org.fts.ft.FtGroupComponent;
import org.fts.ft.FtGroupVersionContext;
import org.fts.ft.FtRequestContext;
import org.fts.ft.Ior;
import org.omg.CORBA.BAD_PARAM;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.LocalObject;
import org.omg.CORBA.ORB;
import org.omg.IOP.ServiceContext;
import org.omg.PortableInterceptor.ClientRequestInfo;
import org.omg.PortableInterceptor.ClientRequestInterceptor;
import org.omg.PortableInterceptor.ForwardRequest;
import org.omg.PortableInterceptor.USER_EXCEPTION;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The FT-CORBA client side, on requests to object group references (IOGRs: profiles tagged
 * {@code TAG_FT_GROUP}); other requests pass untouched.
 *
 * <ul>
 * <li>Every request carries FT_REQUEST ({@code client_id}, {@code retention_id}, {@code expiration_time}):
 * one retention id per logical request, the same on every reinvocation, so a replica recognises a retry and
 * answers it from its reply cache instead of executing it again.
 * <li>A request that fails with {@code COMM_FAILURE}, {@code TRANSIENT}, {@code TIMEOUT} or
 * {@code NO_RESPONSE} and a completion status other than {@code COMPLETED_YES} is redirected
 * ({@link ForwardRequest}) to the next replica of the group, in the IOGR's order, cycling, until its expiration
 * time; then the ORB raises the last exception to the caller. {@code COMPLETED_YES} means the object itself
 * answered with that exception, which a retry would only repeat.
 * <li>Every request carries FT_GROUP_VERSION, the group version this client knows; a reply from a newer group
 * carries the new IOGR, which replaces the member list.
 * </ul>
 *
 * <p><b>Reinvocations are recognised by the JacORB invocation they belong to, not by time.</b> The ORB does not
 * mark a request as a reinvocation, and none of the request's attributes does either. After a
 * {@code ForwardRequest} from {@code receive_exception} JacORB reinvokes on the same thread, with a new request
 * id, a new {@code target} object (when the exception came with the reply) or the original one (when it came
 * while sending), the same {@code effective_target} (the stub, as for any later request through it), and no
 * {@code forward_reference}. What does carry over is JacORB's invocation context ({@link JacorbInvocation}):
 * one object per invocation, kept across the {@code RemarshalException} that carries the forward back to the
 * stub, and popped when the invocation returns or raises to its caller. So the rule is: a request is a
 * reinvocation exactly when it belongs to the same invocation as this thread's previous attempt, for the same
 * object group and operation. It holds in both directions:
 * <ul>
 * <li>every reinvocation of a forwarded request is recognised, however long a GC pause, a starved CPU or
 * another interceptor delays it;
 * <li>a new request never takes an earlier request's id, even when that earlier request was forwarded and then
 * ended before its reinvocation was sent (a deadline, the ORB shut down, another interceptor's exception): its
 * invocation is a new object.
 * </ul>
 * Reinvocations JacORB makes on its own within an invocation (its next-profile retry after {@code TRANSIENT},
 * {@code jacorb.connection.client.retry_on_failure}, GIOP {@code LOCATION_FORWARD}) keep the id too, as FT-CORBA
 * asks. JacORB leaves an invocation's context on the stack only if something other than a CORBA system
 * exception escapes it (a bug in an interceptor or in JacORB), and then reuses it for the thread's next call,
 * deadlines included; that next call, if to the same group and operation, would then count as a reinvocation
 * (docs/failover.md, "How a reinvocation is recognised").
 */
final class FtClientInterceptor extends LocalObject implements ClientRequestInterceptor {
    private static final Logger LOG = LoggerFactory.getLogger(FtClientInterceptor.class);
    private static final Set<String> RETRYABLE = Set.of(
            "IDL:omg.org/CORBA/COMM_FAILURE:1.0", "IDL:omg.org/CORBA/TRANSIENT:1.0",
            "IDL:omg.org/CORBA/TIMEOUT:1.0", "IDL:omg.org/CORBA/NO_RESPONSE:1.0");
    private static final long MAX_BACKOFF_MS = 1000;

    /**
     * One logical request: the JacORB invocation it is (compared by identity; null: unknown, never matched), its
     * object group and operation, its FT_REQUEST identity, the replica its next attempt goes to (-1: as the ORB
     * chooses), and how many redirects went before.
     */
    private record Attempt(Object invocation, String group, String operation, String clientId, int retentionId,
                           long expirationTimeT, int member, int tries) {
        /** Whether a request of {@code inv} to {@code g}/{@code op} is another attempt of this one. */
        boolean reinvokedBy(Object inv, String g, String op) {
            return invocation != null && invocation == inv && group.equals(g) && operation.equals(op);
        }

        Attempt redirected(int next) {
            return new Attempt(invocation, group, operation, clientId, retentionId, expirationTimeT, next, tries + 1);
        }
    }

    private final ClientConfig config;
    private final AtomicInteger retention = new AtomicInteger();
    private final Map<String, ObjectGroup> groups = new ConcurrentHashMap<>();
    /** Per object group, each serving replica's load as a reply last told it (FTS_GROUP_LOAD), by endpoint. */
    private final Map<String, Map<String, Long>> loads = new ConcurrentHashMap<>();
    /**
     * This thread's latest logical requests, newest first: more than one only when an interceptor makes calls
     * of its own while a request is under way. Never cleared: only a request of the same invocation can match an
     * entry, and a receive point does not end an invocation (another interceptor may still forward it).
     */
    private final ThreadLocal<Attempt[]> recent = ThreadLocal.withInitial(() -> new Attempt[4]);

    FtClientInterceptor(ClientConfig config) {
        this.config = config;
    }

    @Override
    public String name() {
        return "fts-ft-client";
    }

    @Override
    public void destroy() {
        groups.clear();
    }

    @Override
    public void send_request(ClientRequestInfo ri) {
        FtGroupComponent tag = groupTag(ri);
        if (tag == null) {
            return;
        }
        ObjectGroup group = group(ri, tag);
        // The ORB does not say whether a request is a reinvocation: one of the same JacORB invocation is.
        Object invocation = JacorbInvocation.current();
        Attempt previous = find(invocation, key(tag), ri.operation());
        Attempt a = previous != null ? previous : first(invocation, tag, ri.operation());
        ri.add_request_service_context(new ServiceContext(FtConstants.FT_REQUEST,
                new FtRequestContext(a.clientId(), a.retentionId(), a.expirationTimeT()).encode()), true);
        ri.add_request_service_context(new ServiceContext(FtConstants.FT_GROUP_VERSION,
                new FtGroupVersionContext(group.version()).encode()), true);
        remember(a);
    }

    /**
     * A new logical request's identity: this ORB's client id and its next retention id, or, from a servant executing
     * an ordered request, the caller's identity ({@link CallerIdentity}), the same on every replica.
     */
    private Attempt first(Object invocation, FtGroupComponent tag, String operation) {
        long expiration = FtRequestContext.timeT(System.currentTimeMillis() + config.requestDuration().toMillis());
        CallerIdentity caller = CallerIdentity.current();
        if (caller != null && !operation.startsWith("_")) {
            if (caller.group().equals(tag.ftDomainId())) {
                throw new org.omg.CORBA.BAD_INV_ORDER("FTS: a servant of group " + caller.group() + " calls " + operation
                        + " on an object of its own group: the call would wait for a request only its own execution "
                        + "could execute (call the servant directly)", 0, CompletionStatus.COMPLETED_NO);
            }
            String kind = key(tag) + "/" + operation;
            return new Attempt(invocation, key(tag), operation, caller.clientId(kind), caller.nextCall(kind), expiration,
                    -1, 0);
        }
        return new Attempt(invocation, key(tag), operation, config.clientId(), retention.incrementAndGet(), expiration,
                -1, 0);
    }

    @Override
    public void send_poll(ClientRequestInfo ri) {
        // no time-independent invocations
    }

    @Override
    public void receive_reply(ClientRequestInfo ri) {
        FtGroupComponent tag = groupTag(ri);
        if (tag != null) {
            refresh(ri, tag);
            learnLoads(ri, tag);
        }
    }

    @Override
    public void receive_other(ClientRequestInfo ri) {
        // a LOCATION_FORWARD (GIOP, or another interceptor's ForwardRequest) is reinvoked: the attempt stays
    }

    @Override
    public void receive_exception(ClientRequestInfo ri) throws ForwardRequest {
        FtGroupComponent tag = groupTag(ri);
        if (tag == null) {
            return;
        }
        if (ri.reply_status() == USER_EXCEPTION.value) {
            refresh(ri, tag);
            return;
        }
        String exception = ri.received_exception_id();
        if (!RETRYABLE.contains(exception) || completion(ri) == CompletionStatus._COMPLETED_YES) {
            return;
        }
        FtRequestContext sent;
        try {
            sent = FtRequestContext.decode(ri.get_request_service_context(FtConstants.FT_REQUEST).context_data);
        } catch (BAD_PARAM notSent) {
            return;   // failed before send_request tagged it: nothing to retry under an id
        }
        Object invocation = JacorbInvocation.current();
        Attempt a = find(invocation, key(tag), ri.operation());
        if (a == null || a.retentionId() != sent.retentionId()) {
            a = new Attempt(invocation, key(tag), ri.operation(), sent.clientId(), sent.retentionId(),
                    sent.expirationTime(), -1, 0);
        }
        long leftMs = FtRequestContext.epochMillis(a.expirationTimeT()) - System.currentTimeMillis();
        if (leftMs <= 0) {
            LOG.warn("{} {}#{}: gave up after {} redirects, the request expired (fts.client.request_duration={}); "
                    + "raising {}", ri.operation(), a.clientId(), a.retentionId(), a.tries(),
                    config.requestDuration(), exception);
            return;
        }
        ObjectGroup group = group(ri, tag);
        int failed = a.member() >= 0 && a.member() < group.size() ? a.member() : group.indexOf(effectiveEndpoint(ri));
        int next = a.tries() == 0 ? leastLoaded(group, key(tag), failed) : Math.floorMod(failed + 1, group.size());
        Attempt redirected = a.redirected(next);
        if (redirected.tries() % group.size() == 0) {
            backoff(Math.min(Math.min(100L * (redirected.tries() / group.size()), MAX_BACKOFF_MS), leftMs));
        }
        remember(redirected);
        LOG.info("{} {}#{}: {} from {}, redirecting to {}", ri.operation(), a.clientId(), a.retentionId(),
                shortName(exception), failed < 0 ? "?" : group.member(failed).endpoint(),
                group.member(next).endpoint());
        throw new ForwardRequest(group.member(next).ref());
    }

    // ------------------------------------------------------------------ helpers

    /**
     * A request's first redirect goes to the least loaded other replica as the group's replies last told (ties, and
     * replicas never told of, in the IOGR's order after the failed one); later redirects go round the IOGR's order.
     */
    private int leastLoaded(ObjectGroup group, String key, int failed) {
        List<String> endpoints = new java.util.ArrayList<>();
        for (int i = 0; i < group.size(); i++) {
            endpoints.add(group.member(i).endpoint());
        }
        return leastLoaded(endpoints, failed, loads.getOrDefault(key, Map.of()));
    }

    /**
     * Of {@code endpoints}, the index of the least loaded one but {@code failed} (-1: not known) by {@code known}
     * loads; ties and endpoints without a load go in order after {@code failed}. Never {@code failed}, unless it is
     * the only one.
     */
    static int leastLoaded(List<String> endpoints, int failed, Map<String, Long> known) {
        int n = endpoints.size();
        int best = Math.floorMod(failed + 1, n);
        long bestLoad = Long.MAX_VALUE;
        int others = failed < 0 ? n : n - 1;
        for (int k = 1; k <= others; k++) {
            int i = Math.floorMod(failed + k, n);
            Long l = known.get(endpoints.get(i));
            if (l != null && l < bestLoad) {
                best = i;
                bestLoad = l;
            }
        }
        return best;
    }

    /** A reply's FTS_GROUP_LOAD, if it carries one: the group's loads from now on. */
    private void learnLoads(ClientRequestInfo ri, FtGroupComponent tag) {
        byte[] data;
        try {
            data = ri.get_reply_service_context(FtConstants.FTS_GROUP_LOAD).context_data;
        } catch (BAD_PARAM none) {
            return;
        }
        try {
            loads.put(key(tag), org.fts.ft.FtGroupLoad.decode(data).loads());
        } catch (org.omg.CORBA.MARSHAL e) {
            LOG.debug("ignoring a malformed FTS_GROUP_LOAD context: {}", e.getMessage());
        }
    }

    /** This thread's attempt of invocation {@code inv} to group {@code g}, operation {@code op}, or null. */
    private Attempt find(Object inv, String g, String op) {
        for (Attempt x : recent.get()) {
            if (x != null && x.reinvokedBy(inv, g, op)) {
                return x;
            }
        }
        return null;
    }

    /** Makes {@code a} this thread's newest attempt, replacing its invocation's previous one or the oldest. */
    private void remember(Attempt a) {
        Attempt[] r = recent.get();
        int i = 0;
        while (i < r.length - 1 && r[i] != null && r[i].invocation() != a.invocation()) {
            i++;
        }
        System.arraycopy(r, 0, r, 1, i);
        r[0] = a;
    }

    /** The request's TAG_FT_GROUP component, or null if the target is not an object group reference. */
    private static FtGroupComponent groupTag(ClientRequestInfo ri) {
        byte[] data;
        try {
            data = ri.get_effective_component(FtConstants.TAG_FT_GROUP).component_data;
        } catch (BAD_PARAM notTagged) {
            return null;
        }
        try {
            return FtGroupComponent.decode(data);
        } catch (org.omg.CORBA.MARSHAL e) {
            LOG.warn("ignoring a malformed TAG_FT_GROUP component: {}", e.getMessage());
            return null;
        }
    }

    private ObjectGroup group(ClientRequestInfo ri, FtGroupComponent tag) {
        return groups.computeIfAbsent(key(tag), k -> {
            ORB orb = orb(ri);
            ObjectGroup g = ObjectGroup.of(orb, orb.object_to_string(ri.target()));
            LOG.debug("object group {}: {}", k, g);
            return g;
        });
    }

    /** A reply from a newer group carries its IOGR: take the new member list. */
    private void refresh(ClientRequestInfo ri, FtGroupComponent tag) {
        long version;
        try {
            version = FtGroupVersionContext.decode(
                    ri.get_reply_service_context(FtConstants.FT_GROUP_VERSION).context_data).version();
        } catch (BAD_PARAM noContext) {
            return;
        }
        ObjectGroup known = groups.get(key(tag));
        if (known != null && version <= known.version()) {
            return;
        }
        String iogr;
        try {
            iogr = new Cdr.Reader(ri.get_reply_service_context(FtConstants.FTS_GROUP_REFERENCE).context_data).string();
        } catch (BAD_PARAM noReference) {
            return;
        }
        ObjectGroup fresh = ObjectGroup.of(orb(ri), iogr);
        ObjectGroup now = groups.merge(key(tag), fresh, (old, neu) -> neu.version() > old.version() ? neu : old);
        if (now == fresh) {
            LOG.info("object group {} is now {}", key(tag), fresh);
        }
    }

    private static String key(FtGroupComponent tag) {
        return tag.ftDomainId() + "/" + Long.toUnsignedString(tag.objectGroupId());
    }

    private static ORB orb(ClientRequestInfo ri) {
        return ((org.omg.CORBA.portable.ObjectImpl) ri.target())._orb();
    }

    private static String effectiveEndpoint(ClientRequestInfo ri) {
        try {
            return new Ior.Profile(ri.effective_profile().tag, ri.effective_profile().profile_data).endpoint();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The completion status of the received system exception (COMPLETED_MAYBE when unreadable). */
    private static int completion(ClientRequestInfo ri) {
        try {
            org.omg.CORBA.portable.InputStream in = ri.received_exception().create_input_stream();
            in.read_string();
            in.read_ulong();
            return in.read_ulong();
        } catch (RuntimeException e) {
            return CompletionStatus._COMPLETED_MAYBE;
        }
    }

    private static String shortName(String repositoryId) {
        int slash = repositoryId.lastIndexOf('/');
        int colon = repositoryId.lastIndexOf(':');
        return slash >= 0 && colon > slash ? repositoryId.substring(slash + 1, colon) : repositoryId;
    }

    /** After every replica failed once more: pause, so that a group that is down is not polled hot. */
    private static void backoff(long ms) {
        if (ms <= 0) {
            return;
        }
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
