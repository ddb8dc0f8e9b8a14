package org.fts.goa;

import org.fts.goa.intake.References;
import org.fts.goa.intake.ObjectKey;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.omg.CORBA.LocalObject;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.InvokeHandler;
import org.omg.CORBA.portable.OutputStream;
import org.omg.CORBA.portable.ResponseHandler;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.Servant;
import org.omg.PortableServer.ServantLocator;
import org.omg.PortableServer.ServantLocatorPackage.CookieHolder;

/**
 * Routes every request of the group's POA to the {@link Dispatcher}, through a servant that knows its object's
 * id (one per activated object, kept; a made-up one for an id nobody activated, which the dispatcher refuses).
 */
final class Locator extends LocalObject implements ServantLocator {
    private final org.omg.CORBA_2_3.ORB orb;
    private final Dispatcher dispatcher;
    private final Map<ObjectKey, Servant> objects;
    private final Map<ObjectKey, ObjectServant> servants = new ConcurrentHashMap<>();

    Locator(org.omg.CORBA.ORB orb, Dispatcher dispatcher, Map<ObjectKey, Servant> objects) {
        this.orb = (org.omg.CORBA_2_3.ORB) orb;
        this.dispatcher = dispatcher;
        this.objects = objects;
    }

    @Override
    public Servant preinvoke(byte[] oid, POA adapter, String operation, CookieHolder cookie) {
        // The existence check is the dispatcher's: JacORB 3.9 sends no reply for a system exception
        // thrown here (the client waited until its reply timeout).
        if (!objects.containsKey(new ObjectKey(References.unmarked(oid)))) {
            return servant(oid);
        }
        if (servants.size() > 2 * objects.size() + 1024) {
            servants.clear();   // ids of objects destroyed since: made again on demand
        }
        return servants.computeIfAbsent(new ObjectKey(oid), k -> servant(oid.clone()));   // marked or not
    }

    @Override
    public void postinvoke(byte[] oid, POA adapter, String operation, Object cookie, Servant servant) {
        // nothing to release
    }

    private ObjectServant servant(byte[] oid) {
        ObjectServant s = new ObjectServant(oid);
        orb.set_delegate(s);   // no POA activates it
        return s;
    }

    /** The servant JacORB calls for one object: the dispatcher, with that object's id. */
    private final class ObjectServant extends Servant implements InvokeHandler {
        private final byte[] oid;

        ObjectServant(byte[] oid) {
            this.oid = oid;
        }

        @Override
        public String[] _all_interfaces(POA poa, byte[] id) {
            byte[] oid = References.unmarked(id);
            Servant s = objects.get(new ObjectKey(oid));
            return s == null ? new String[0] : s._all_interfaces(poa, oid);
        }

        @Override
        public OutputStream _invoke(String operation, InputStream in, ResponseHandler rh) {
            return dispatcher.invoke(oid, operation, in, rh);
        }
    }
}
