package org.fts.goa;

import org.omg.CORBA.LocalObject;
import org.omg.CORBA.ORB;
import org.omg.PortableInterceptor.ORBInitInfo;
import org.omg.PortableInterceptor.ORBInitInfoPackage.InvalidName;
import org.omg.PortableInterceptor.ORBInitializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers the Group Object Adaptor as the initial reference {@code "GroupPOA"}, with ORB properties only:
 * {@code org.omg.PortableInterceptor.ORBInitializerClass.org.fts.goa.GroupPOAInitializer=}. A server then
 * gets its adaptor the standard way, {@code POAHelper.narrow(orb.resolve_initial_references("GroupPOA"))},
 * configured by the {@code fts.*} keys of the ORB's configuration ({@code jacorb.properties}, {@code -D},
 * {@code ORB.init} properties; see {@link GroupPOA#create(ORB)}). The adaptor is created, and joins its group,
 * at the end of {@code ORB.init}.
 *
 * <p>A configuration error fails {@code ORB.init} with the key's name when
 * {@code jacorb.orb_initializer.fail_on_error=on} (the example {@code jacorb.properties} sets it). Otherwise
 * JacORB logs and drops a failing initializer, so {@code "GroupPOA"} is then unknown
 * ({@code InvalidName}) and the error is in the log, naming the key.
 */
public final class GroupPOAInitializer extends LocalObject implements ORBInitializer {
    /** The initial reference the adaptor is registered under. */
    public static final String INITIAL_REFERENCE = "GroupPOA";

    private static final Logger LOG = LoggerFactory.getLogger(GroupPOAInitializer.class);

    @Override
    public void pre_init(ORBInitInfo info) {
        ORB orb = Jacorb.orbOf(info);
        if (orb != null && Jacorb.isRelayOrb(orb)) {
            return;   // an outcall relay's private ORB: no adaptor, no interceptor
        }
        // the adaptor needs the RootPOA, which exists only once the ORB's own set-up is done; its outcalls'
        // interceptor is registered here, idle until an adaptor with fts.outcalls=ordered binds it
        OutcallInterceptor outcalls = new OutcallInterceptor();
        try {
            info.add_client_request_interceptor(outcalls);
            info.register_initial_reference(OutcallInterceptor.INITIAL_REFERENCE, outcalls);
        } catch (org.omg.PortableInterceptor.ORBInitInfoPackage.DuplicateName | InvalidName e) {
            throw new org.omg.CORBA.INITIALIZE("FTS: the outcalls interceptor is registered twice: " + e);
        }
    }

    @Override
    public void post_init(ORBInitInfo info) {
        ORB orb = Jacorb.orbOf(info);
        if (orb != null && Jacorb.isRelayOrb(orb)) {
            return;
        }
        if (orb == null) {
            throw new org.omg.CORBA.INITIALIZE("FTS: the GroupPOA initializer needs JacORB's ORB");
        }
        GroupPOA poa;
        try {
            poa = GroupPOA.create(orb);
        } catch (RuntimeException e) {
            LOG.error("FTS: GroupPOA not created: {}", e.getMessage());
            throw e;
        }
        try {
            info.register_initial_reference(INITIAL_REFERENCE, poa);
        } catch (InvalidName e) {
            poa.destroy(false, false);
            throw new org.omg.CORBA.INITIALIZE("FTS: the initial reference " + INITIAL_REFERENCE
                    + " is already registered");
        }
    }
}
