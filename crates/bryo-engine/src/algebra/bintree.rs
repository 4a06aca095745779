//! Fingerprints of binary trees by intercalation (Broder §5.3, equations
//! 13–15, after J. O'Toole).

use crate::Modulus;

/// A binary tree: every node has an optional left and an optional right
/// child. A node with no children is a leaf.
///
/// For the encoding the tree is enlarged to a full binary tree: a missing
/// child of an inner node becomes a *dummy* leaf (string `10`), a real leaf
/// has string `11`, and an inner node the intercalation `S(A, B)` of its
/// children's strings (equation 13–14).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct BinaryTree {
    /// The left subtree.
    pub left: Option<Box<BinaryTree>>,
    /// The right subtree.
    pub right: Option<Box<BinaryTree>>,
}

/// The string of a real leaf, `11`.
const LEAF: u128 = 0b11;
/// The string of a dummy leaf, `10`.
const DUMMY: u128 = 0b10;

impl BinaryTree {
    /// A leaf.
    pub fn leaf() -> BinaryTree {
        BinaryTree::default()
    }

    /// An inner node (a leaf if both children are `None`).
    pub fn node(left: Option<BinaryTree>, right: Option<BinaryTree>) -> BinaryTree {
        BinaryTree {
            left: left.map(Box::new),
            right: right.map(Box::new),
        }
    }

    fn is_leaf(&self) -> bool {
        self.left.is_none() && self.right.is_none()
    }

    /// The explicit encoding of equations (13)–(14), most significant bit
    /// first: `11` for a leaf, `S(A, B)` for an inner node, the shorter
    /// child string padded with zeros on the left. Its length doubles with
    /// every level, so this is for small trees (and for checking
    /// [`tree_fingerprint`]).
    pub fn encoding(&self) -> Vec<bool> {
        fn bits(x: u128) -> Vec<bool> {
            vec![x >> 1 & 1 == 1, x & 1 == 1]
        }
        fn child(c: &Option<Box<BinaryTree>>) -> Vec<bool> {
            match c {
                Some(t) => t.encoding(),
                None => bits(DUMMY),
            }
        }
        if self.is_leaf() {
            return bits(LEAF);
        }
        let (mut a, mut b) = (child(&self.left), child(&self.right));
        let n = a.len().max(b.len());
        for s in [&mut a, &mut b] {
            let pad = n - s.len();
            s.splice(0..0, std::iter::repeat_n(false, pad));
        }
        a.iter().zip(&b).flat_map(|(&x, &y)| [x, y]).collect()
    }
}

/// The fingerprint of an intercalation from its parts' fingerprints:
/// `f(S(A, B)) = f(A)²·t + f(B)² mod P`.
///
/// Intercalating puts `A`'s bits at the odd powers of `t` and `B`'s at the
/// even ones, so `C(t) = A(t²)·t + B(t²)`, and in `Z2[t]` `X(t²) = X(t)²`
/// (§5.3; the extracted text of the paper prints the second term as `B(t)`,
/// which does not match the interleaving). Use it to fingerprint any binary
/// tree type bottom-up.
pub fn intercalate(m: &Modulus, fa: u128, fb: u128) -> u128 {
    m.add(m.mul(m.square(fa), m.pow_t(1)), m.square(fb))
}

/// The fingerprint `f(C) = C(t) mod P` (equation 15) of a tree's encoding,
/// computed bottom-up with [`intercalate`] in time linear in the size of the
/// tree, though the encoding itself may be exponentially long. Iterative:
/// deep trees do not exhaust the stack.
pub fn tree_fingerprint(m: &Modulus, tree: &BinaryTree) -> u128 {
    let leaf = m.add(LEAF, 0);
    let dummy = m.add(DUMMY, 0);
    // Post-order with an explicit stack; `done` holds finished subtrees.
    let mut stack: Vec<(&BinaryTree, bool)> = vec![(tree, false)];
    let mut done: Vec<u128> = Vec::new();
    while let Some((node, expanded)) = stack.pop() {
        if node.is_leaf() {
            done.push(leaf);
        } else if !expanded {
            stack.push((node, true));
            if let Some(r) = &node.right {
                stack.push((r, false));
            }
            if let Some(l) = &node.left {
                stack.push((l, false));
            }
        } else {
            let fb = match node.right {
                Some(_) => done.pop().unwrap_or(dummy),
                None => dummy,
            };
            let fa = match node.left {
                Some(_) => done.pop().unwrap_or(dummy),
                None => dummy,
            };
            done.push(intercalate(m, fa, fb));
        }
    }
    done.pop().unwrap_or(leaf)
}
