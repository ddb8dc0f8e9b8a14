package com.example.bank;

import java.nio.charset.StandardCharsets;

import org.omg.CORBA.ORB;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;

/**
 * The audit service: {@code AuditServer plain|group IOR-FILE}. {@code plain} serves one {@link AuditImpl} from the
 * root POA, as any CORBA server does; {@code group} is one replica of the audit group ({@code GroupPOA}, configured
 * by {@code -Dcustom.props=config/audit-N.properties}). Writes the audit's reference and serves until stopped.
 */
public final class AuditServer {
    private AuditServer() {
    }

    public static void main(String[] args) throws Exception {
        ORB orb = ORB.init(new String[0], null);
        org.omg.CORBA.Object ref;
        if (args[0].equals("plain")) {
            POA root = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
            root.the_POAManager().activate();
            ref = root.servant_to_reference(new AuditImpl());
        } else {
            POA poa = POAHelper.narrow(orb.resolve_initial_references("GroupPOA"));
            byte[] id = "audit".getBytes(StandardCharsets.UTF_8);
            poa.activate_object_with_id(id, new AuditImpl());
            poa.the_POAManager().activate();
            ref = poa.id_to_reference(id);
        }
        IorFile.write(orb, ref, args[1]);
        System.out.println("audit ready");
        System.out.flush();
        orb.run();
    }
}
