package org.fts.goa;

import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.LocalObject;
import org.omg.CORBA.NO_IMPLEMENT;
import org.omg.CORBA.Policy;
import org.omg.PortableServer.AdapterActivator;
import org.omg.PortableServer.IdAssignmentPolicy;
import org.omg.PortableServer.IdAssignmentPolicyValue;
import org.omg.PortableServer.IdUniquenessPolicy;
import org.omg.PortableServer.IdUniquenessPolicyValue;
import org.omg.PortableServer.ImplicitActivationPolicy;
import org.omg.PortableServer.ImplicitActivationPolicyValue;
import org.omg.PortableServer.LifespanPolicy;
import org.omg.PortableServer.LifespanPolicyValue;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAManager;
import org.omg.PortableServer.POAManagerFactory;
import org.omg.PortableServer.RequestProcessingPolicy;
import org.omg.PortableServer.RequestProcessingPolicyValue;
import org.omg.PortableServer.Servant;
import org.omg.PortableServer.ServantManager;
import org.omg.PortableServer.ServantRetentionPolicy;
import org.omg.PortableServer.ServantRetentionPolicyValue;
import org.omg.PortableServer.ThreadPolicy;
import org.omg.PortableServer.ThreadPolicyValue;
import org.omg.PortableServer.POAPackage.WrongPolicy;

/**
 * The parts of {@link POA} a replicated adaptor only passes on: policy objects come from the root POA, and
 * what makes no sense for replicated objects fails clearly ({@link NO_IMPLEMENT} for child POAs and adapter
 * activators, {@link WrongPolicy} for servant managers and default servants: the adaptor routes every
 * request itself).
 */
abstract class PoaBasics extends LocalObject implements POA {
    /** The ORB's root POA, which makes the policy objects. */
    protected final POA root;

    PoaBasics(POA root) {
        this.root = root;
    }

    @Override
    public POA the_parent() {
        return root;
    }

    @Override
    public POA[] the_children() {
        return new POA[0];
    }

    @Override
    public POAManagerFactory the_POAManagerFactory() {
        return root.the_POAManagerFactory();
    }

    @Override
    public ThreadPolicy create_thread_policy(ThreadPolicyValue v) {
        return root.create_thread_policy(v);
    }

    @Override
    public LifespanPolicy create_lifespan_policy(LifespanPolicyValue v) {
        return root.create_lifespan_policy(v);
    }

    @Override
    public IdUniquenessPolicy create_id_uniqueness_policy(IdUniquenessPolicyValue v) {
        return root.create_id_uniqueness_policy(v);
    }

    @Override
    public IdAssignmentPolicy create_id_assignment_policy(IdAssignmentPolicyValue v) {
        return root.create_id_assignment_policy(v);
    }

    @Override
    public ImplicitActivationPolicy create_implicit_activation_policy(ImplicitActivationPolicyValue v) {
        return root.create_implicit_activation_policy(v);
    }

    @Override
    public ServantRetentionPolicy create_servant_retention_policy(ServantRetentionPolicyValue v) {
        return root.create_servant_retention_policy(v);
    }

    @Override
    public RequestProcessingPolicy create_request_processing_policy(RequestProcessingPolicyValue v) {
        return root.create_request_processing_policy(v);
    }

    // ------------------------------------------------------------------ not for a replicated adaptor

    private static NO_IMPLEMENT unsupported(String what) {
        return new NO_IMPLEMENT("FTS GroupPOA does not support " + what + " (see docs/goa.md)", 0,
                CompletionStatus.COMPLETED_NO);
    }

    @Override
    public POA create_POA(String name, POAManager manager, Policy[] policies) {
        throw unsupported("child POAs");
    }

    @Override
    public POA find_POA(String name, boolean activate) {
        throw unsupported("child POAs");
    }

    @Override
    public AdapterActivator the_activator() {
        return null;
    }

    @Override
    public void the_activator(AdapterActivator activator) {
        throw unsupported("adapter activators");
    }

    @Override
    public ServantManager get_servant_manager() throws WrongPolicy {
        throw new WrongPolicy();
    }

    @Override
    public void set_servant_manager(ServantManager manager) throws WrongPolicy {
        throw new WrongPolicy();
    }

    @Override
    public Servant get_servant() throws WrongPolicy {
        throw new WrongPolicy();
    }

    @Override
    public void set_servant(Servant servant) throws WrongPolicy {
        throw new WrongPolicy();
    }
}
