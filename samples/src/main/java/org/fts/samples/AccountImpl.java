package org.fts.samples;

import fts_samples.AccountPOA;
import fts_samples.InsufficientFunds;

/** A bank account; withdrawing more than the balance raises the user exception InsufficientFunds. */
public class AccountImpl extends AccountPOA {
    private long balance;

    @Override
    public synchronized void deposit(long amount) {
        if (amount < 0) {
            throw new IllegalArgumentException("negative deposit " + amount);
        }
        balance += amount;
    }

    @Override
    public synchronized void withdraw(long amount) throws InsufficientFunds {
        if (amount > balance) {
            throw new InsufficientFunds(balance, amount);
        }
        balance -= amount;
    }

    @Override
    public synchronized long balance() {
        return balance;
    }
}
