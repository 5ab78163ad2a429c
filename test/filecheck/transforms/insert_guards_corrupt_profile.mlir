// RUN: not ts-opt %s --load-pass-plugin %S/../tools/ts_opt/Inputs/corrupt_profile_plugin.py -p corrupt-profile,insert-guards 2>&1 | filecheck %s

// A profile a plugin edited into nonsense is a verifier error naming the op, not a
// crash and not a guard on a wrong type.
// CHECK: error: 'profile.profile' op seen type !ts.int of value 0 is not a subtype of its type !ts.tensor
func.func @f(%x : !ts.tensor) -> !ts.tensor {
  %p = profile.profile[seen_types = [!ts.tensor<f32, [2]>]] %x : !ts.tensor
  func.return %p : !ts.tensor
}
