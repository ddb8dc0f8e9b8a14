package org.fts.goa;

import org.omg.CORBA.LocalObject;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.Servant;
import org.omg.PortableServer.ServantLocator;
import org.omg.PortableServer.ServantLocatorPackage.CookieHolder;

/** Routes every request of the group's POA to the {@link Dispatcher}. */
final class Locator extends LocalObject implements ServantLocator {
    private final Dispatcher dispatcher;

    Locator(Dispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    @Override
    public Servant preinvoke(byte[] oid, POA adapter, String operation, CookieHolder cookie) {
        // The existence check is the dispatcher's: JacORB 3.9 sends no reply for a system exception
        // thrown here (the client waited until its reply timeout).
        Dispatcher.TARGET.set(oid);
        return dispatcher;
    }

    @Override
    public void postinvoke(byte[] oid, POA adapter, String operation, Object cookie, Servant servant) {
        Dispatcher.TARGET.remove();
    }
}
