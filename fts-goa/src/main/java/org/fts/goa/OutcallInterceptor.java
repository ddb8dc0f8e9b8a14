package org.fts.goa;

import org.fts.ft.FtConstants;
import org.fts.ft.Ior;
import org.fts.ft.client.CallerIdentity;
import org.omg.CORBA.LocalObject;
import org.omg.PortableInterceptor.ClientRequestInfo;
import org.omg.PortableInterceptor.ClientRequestInterceptor;
import org.omg.PortableInterceptor.ForwardRequest;

/**
 * With {@code fts.outcalls=ordered}: forwards a servant's call to an object that is not a group, made while it
 * executes an ordered request, to this replica's relay ({@link Outcalls}), which has one replica make it and every
 * replica answer it with the outcome ordered first. Registered on every adaptor's ORB by {@link GroupPOAInitializer}
 * (as the initial reference {@value #INITIAL_REFERENCE}); does nothing until an adaptor in {@code ordered} mode binds
 * it, nor for calls to object groups (they carry the request's identity: {@link CallerIdentity}), nor for calls from
 * other threads.
 */
public final class OutcallInterceptor extends LocalObject implements ClientRequestInterceptor {
    /** The initial reference the adaptor finds it by. */
    public static final String INITIAL_REFERENCE = "FTSOutcalls";

    private volatile Outcalls outcalls;
    /** The call this thread just forwarded to the relay, until its reinvocation there. */
    private final ThreadLocal<String> forwarded = new ThreadLocal<>();

    void bind(Outcalls o) {
        this.outcalls = o;
    }

    @Override
    public String name() {
        return "fts-outcalls";
    }

    @Override
    public void destroy() {
        outcalls = null;
    }

    @Override
    public void send_request(ClientRequestInfo ri) throws ForwardRequest {
        Outcalls o = outcalls;
        RequestContext context = o == null ? null : RequestContext.orNull();
        CallerIdentity caller = CallerIdentity.current();
        if (context == null || caller == null || ri.operation().startsWith("_")) {
            return;   // not from an ordered request, or an ORB built-in (no effect: each replica makes its own)
        }
        Ior.Profile profile = new Ior.Profile(ri.effective_profile().tag, ri.effective_profile().profile_data);
        String endpoint;
        try {
            endpoint = profile.endpoint();
        } catch (RuntimeException notIiop) {
            return;
        }
        if (profile.component(FtConstants.TAG_FT_GROUP) != null) {
            return;   // an object group: its identity is the request's
        }
        String forwarded = this.forwarded.get();
        this.forwarded.remove();
        if (o.isRelay(endpoint)) {   // the forward's reinvocation, or a stub JacORB rebound to the relay earlier
            String kind = "relayed/" + ri.operation();
            String call = forwarded != null ? forwarded : caller.clientId(kind) + "#" + caller.nextCall(kind);
            if (forwarded == null) {
                o.register(call, context.origin());
            }
            ri.add_request_service_context(new org.omg.IOP.ServiceContext(FtConstants.FTS_OUTCALL,
                    call.getBytes(java.nio.charset.StandardCharsets.UTF_8)), true);
            return;
        }
        org.omg.CORBA.Object target = ri.effective_target();
        String ior = ((org.omg.CORBA.portable.ObjectImpl) target)._orb().object_to_string(target);
        String kind = "relayed/" + ri.operation();
        String call = caller.clientId(kind) + "#" + caller.nextCall(kind);
        org.omg.CORBA.Object relay = o.relayFor(call, ior, context.origin());
        this.forwarded.set(call);   // the reinvocation on the relay, next on this thread, carries it
        throw new ForwardRequest(relay);
    }

    @Override
    public void send_poll(ClientRequestInfo ri) {
        // no time-independent invocations
    }

    @Override
    public void receive_reply(ClientRequestInfo ri) {
        // the relay answered
    }

    @Override
    public void receive_exception(ClientRequestInfo ri) {
        // the outcome was an exception: the servant sees it
    }

    @Override
    public void receive_other(ClientRequestInfo ri) {
        // the forward
    }
}
