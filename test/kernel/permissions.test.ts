import { expect } from 'chai';
import { KERNEL_PERMISSIONS, PermissionRegistry } from '../../kernel/permissions.ts';

describe('kernel permission keys', () => {
  it('declares the keys several plugins share, gateway:manage among them, so no plugin has to own them', () => {
    const registry = new PermissionRegistry();
    registry.register('kernel', KERNEL_PERMISSIONS);
    expect(registry.has('gateway:manage')).to.equal(true);
    // A plugin that declares a kernel key again is refused at start: one owner per key.
    expect(() => registry.register('some-plugin', [{ key: 'gateway:manage', description: 'again' }])).to.throw(
      /declared by both "kernel" and "some-plugin"/,
    );
  });
});
