package org.fts.goa;

import org.omg.CORBA.LocalObject;
import org.omg.PortableServer.POAManager;
import org.omg.PortableServer.POAManagerPackage.AdapterInactive;
import org.omg.PortableServer.POAManagerPackage.State;

/**
 * The {@link GroupPOA}'s manager: JacORB's, plus one step on {@link #activate()}: the application has
 * activated its objects, so the replica can now install the group's state into them (and waits for it).
 */
final class GroupPOAManager extends LocalObject implements POAManager {
    private final POAManager delegate;
    private final Runnable onActivate;

    GroupPOAManager(POAManager delegate, Runnable onActivate) {
        this.delegate = delegate;
        this.onActivate = onActivate;
    }

    @Override
    public void activate() throws AdapterInactive {
        delegate.activate();   // requests flow; while the state is fetched they get TRANSIENT
        onActivate.run();
    }

    @Override
    public void hold_requests(boolean waitForCompletion) throws AdapterInactive {
        delegate.hold_requests(waitForCompletion);
    }

    @Override
    public void discard_requests(boolean waitForCompletion) throws AdapterInactive {
        delegate.discard_requests(waitForCompletion);
    }

    @Override
    public void deactivate(boolean etherealize, boolean waitForCompletion) throws AdapterInactive {
        delegate.deactivate(etherealize, waitForCompletion);
    }

    @Override
    public State get_state() {
        return delegate.get_state();
    }
}
