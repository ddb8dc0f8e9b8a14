package org.fts.ft.client;

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
 * <p>Reinvocations are recognised on the calling thread: JacORB reinvokes a forwarded request on the thread
 * that received the exception, before any other request of that thread.
 */
final class FtClientInterceptor extends LocalObject implements ClientRequestInterceptor {
    private static final Logger LOG = LoggerFactory.getLogger(FtClientInterceptor.class);
    private static final Set<String> RETRYABLE = Set.of(
            "IDL:omg.org/CORBA/COMM_FAILURE:1.0", "IDL:omg.org/CORBA/TRANSIENT:1.0",
            "IDL:omg.org/CORBA/TIMEOUT:1.0", "IDL:omg.org/CORBA/NO_RESPONSE:1.0");
    private static final long MAX_BACKOFF_MS = 1000;

    /** A forwarded request is reinvoked at once; a later request on the thread is a new one. */
    private static final long REINVOCATION_WINDOW_NANOS = 1_000_000_000L;

    /**
     * One attempt of a logical request: its object group and operation, which replica it went to (-1: as the
     * ORB chose), how many attempts went before, and when it was forwarded (System.nanoTime).
     */
    private record Attempt(String group, String operation, int retentionId, long expirationTimeT, int member,
                           int tries, long forwardedAt) {
        boolean reinvokes(String g, String op) {
            return group.equals(g) && operation.equals(op)
                    && System.nanoTime() - forwardedAt < REINVOCATION_WINDOW_NANOS;
        }
    }

    private final ClientConfig config;
    private final AtomicInteger retention = new AtomicInteger();
    private final Map<String, ObjectGroup> groups = new ConcurrentHashMap<>();
    private final ThreadLocal<Attempt> current = new ThreadLocal<>();
    private final ThreadLocal<Attempt> reinvocation = new ThreadLocal<>();

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
        Attempt next = reinvocation.get();
        reinvocation.remove();
        // The ORB does not say whether a request is a reinvocation (its target object is even a new one after a
        // forward): one on this thread, for the same object group and operation, right after a forward is.
        Attempt a = next != null && next.reinvokes(key(tag), ri.operation()) ? next
                : new Attempt(key(tag), ri.operation(), retention.incrementAndGet(),
                        FtRequestContext.timeT(System.currentTimeMillis() + config.requestDuration().toMillis()), -1, 0,
                        0);
        ri.add_request_service_context(new ServiceContext(FtConstants.FT_REQUEST,
                new FtRequestContext(config.clientId(), a.retentionId(), a.expirationTimeT()).encode()), true);
        ri.add_request_service_context(new ServiceContext(FtConstants.FT_GROUP_VERSION,
                new FtGroupVersionContext(group.version()).encode()), true);
        if (ri.response_expected()) {
            current.set(a);
        }
    }

    @Override
    public void send_poll(ClientRequestInfo ri) {
        // no time-independent invocations
    }

    @Override
    public void receive_reply(ClientRequestInfo ri) {
        current.remove();
        FtGroupComponent tag = groupTag(ri);
        if (tag != null) {
            refresh(ri, tag);
        }
    }

    @Override
    public void receive_other(ClientRequestInfo ri) {
        current.remove();
    }

    @Override
    public void receive_exception(ClientRequestInfo ri) throws ForwardRequest {
        Attempt a = current.get();
        current.remove();
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
        if (a == null || a.retentionId() != sent.retentionId() || !a.group().equals(key(tag))) {
            a = new Attempt(key(tag), ri.operation(), sent.retentionId(), sent.expirationTime(), -1, 0, 0);
        }
        long leftMs = FtRequestContext.epochMillis(a.expirationTimeT()) - System.currentTimeMillis();
        if (leftMs <= 0) {
            LOG.warn("{} {}#{}: gave up after {} redirects, the request expired (fts.client.request_duration={}); "
                    + "raising {}", ri.operation(), config.clientId(), a.retentionId(), a.tries(),
                    config.requestDuration(), exception);
            return;
        }
        ObjectGroup group = group(ri, tag);
        int failed = a.member() >= 0 && a.member() < group.size() ? a.member() : group.indexOf(effectiveEndpoint(ri));
        int next = Math.floorMod(failed + 1, group.size());
        int tries = a.tries() + 1;
        if (tries % group.size() == 0) {
            backoff(Math.min(Math.min(100L * (tries / group.size()), MAX_BACKOFF_MS), leftMs));
        }
        reinvocation.set(new Attempt(a.group(), a.operation(), a.retentionId(), a.expirationTimeT(), next, tries,
                System.nanoTime()));
        LOG.info("{} {}#{}: {} from {}, redirecting to {}", ri.operation(), config.clientId(), a.retentionId(),
                shortName(exception), failed < 0 ? "?" : group.member(failed).endpoint(),
                group.member(next).endpoint());
        throw new ForwardRequest(group.member(next).ref());
    }

    // ------------------------------------------------------------------ helpers

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
