// One strain channel's per-step friction and plasticity update: the GPU twin
// of model/channel.rs (`Channel::update`), model/friction.rs and
// model/plastic.rs. docs/physics.md gives the algorithms (the paper's Alg. 1-2,
// Eq. 7-14; Miguel 2013 Eq. 3 and 9 for Dahl).

fn sign_of(x: f32) -> f32 {
    return select(-1.0, 1.0, x >= 0.0);
}

// model/decay.rs `decay`: exp(-t / tau), or with a spread of `decades`,
// the mean of DECAY_TERMS exponentials log-spaced over them around tau.
const DECAY_TERMS: u32 = 5u;
const LOG10_2: f32 = 0.30103;
fn decay(t: f32, tau: f32, decades: f32) -> f32 {
    if (decades == 0.0) {
        return exp(-t / tau);
    }
    var sum = 0.0;
    for (var k = 0u; k < DECAY_TERMS; k++) {
        let exponent = decades * (f32(k) / f32(DECAY_TERMS - 1u) - 0.5);
        sum += exp(-t / (tau * pow(10.0, exponent)));
    }
    return sum / f32(DECAY_TERMS);
}

// model/decay.rs `scatter`: element `element`'s factor on a dwell's time
// constant scattered over `decades` decades across the cloth, from the
// same 24-bit quantile (`quantile`: Fibonacci hashing, exact in f32), on a
// spectrum whose elements per decade grow as tau^skew.
fn quantile(element: u32) -> f32 {
    return f32((element * 0x9e3779b9u) >> 8u) / 16777216.0;
}

fn scatter(element: u32, decades: f32, skew: f32) -> f32 {
    if (decades == 0.0) {
        return 1.0;
    }
    let q = quantile(element);
    if (skew == 0.0) {
        return pow(10.0, decades * (q - 0.5));
    }
    let x = log2(1.0 + q * (pow(10.0, skew * decades) - 1.0)) * LOG10_2 / skew;
    return pow(10.0, x - 0.5 * decades);
}

// Time-dependent hardening (Eq. 10-14); g = 0 gives the time-independent model.
fn hardening_update(s: ptr<function, ChannelState>, p: vec4<f32>, g: f32, decades: f32, strain: f32, k: f32, h: f32) {
    let eps_e = strain - (*s).plastic.x;
    let sgn = sign_of(eps_e);
    let yielding = abs(eps_e) > (*s).plastic.z;
    (*s).plastic.w += h;
    if (yielding && (*s).dir.x != sgn) {
        (*s).plastic.w = 0.0;
    }
    let k_h = p.x * (1.0 - g * (1.0 - decay((*s).plastic.w, p.z, decades)));
    if (yielding) {
        let delta = (abs(eps_e) - (*s).plastic.z) * k / (k + k_h);
        (*s).plastic.y += delta;
        (*s).plastic.x += sgn * delta;
        (*s).dir.x = sgn;
    }
    (*s).plastic.z = p.w + (*s).plastic.y * k_h / k;
}

// Perfect plasticity (Eq. 9).
fn perfect_update(s: ptr<function, ChannelState>, strain: f32, yield_strain: f32) {
    let eps_e = strain - (*s).plastic.x;
    if (abs(eps_e) > yield_strain) {
        (*s).plastic.x = strain - sign_of(eps_e) * yield_strain;
        (*s).dir.x = sign_of(eps_e);
        (*s).plastic.y = abs((*s).plastic.x);
    }
}

// Dwell friction (Alg. 1, Eq. 7-8): returns d = strain - anchor. `spread`:
// the dwell's spread and its scatter (decades), and the scatter's skew, of
// element `element`.
fn dwell_update(s: ptr<function, ChannelState>, p: vec4<f32>, spread: vec3<f32>, strain: f32, h: f32,
                element: u32) -> f32 {
    var d = strain - (*s).friction.x;
    let tau = p.w * scatter(element, spread.y, spread.z);
    let thres = p.z - (p.z - p.y) * decay((*s).friction.y, tau, spread.x);
    if (abs(d) > thres) {
        (*s).friction.x += sign_of(d) * (abs(d) - thres);
        d = sign_of(d) * thres;
        (*s).friction.y = 0.0;
        (*s).friction.w = 1.0;
    } else {
        (*s).friction.y += h;
        (*s).friction.w = 0.0;
    }
    return d;
}

// Dahl (Eq. 3): the stress at `strain` from the last update's (strain, stress).
fn dahl_advance(s: ptr<function, ChannelState>, p: vec4<f32>, strain: f32) -> f32 {
    let de = strain - (*s).friction.x;
    if (de != 0.0) {
        let dir = sign(de);
        let target_stress = dir * (p.x + p.y * abs(strain));
        let start = dir * (p.x + p.y * abs((*s).friction.x));
        (*s).friction.z = target_stress + ((*s).friction.z - start) * exp(-dir * de / p.z);
        (*s).friction.x = strain;
    }
    (*s).friction.w = select(0.0, 1.0, abs((*s).friction.z) >= 0.95 * (p.x + p.y * abs(strain)));
    return (*s).friction.z;
}

// Dahl (Eq. 9): the damping coefficient of the linearised stress.
fn dahl_rate_coefficient(p: vec4<f32>, sigma0: f32, strain: f32, rate: f32, dt: f32) -> f32 {
    let s0 = select(-1.0, 1.0, rate >= 0.0);
    let num = p.x + p.y * abs(strain) - s0 * sigma0 + dt * p.y * abs(rate);
    let den = p.z + dt * s0 * rate;
    return max(dt * num / den, 0.0);
}

// The channel update (`Channel::update`): plasticity, then friction, of
// element `element` (a hinge, a face).
fn channel_update(c: ChannelParams, friction_model: u32, plastic_model: u32, s: ptr<function, ChannelState>,
                  strain: f32, rate: f32, k: f32, dt: f32, h: f32, element: u32) -> ChannelForce {
    if (plastic_model == PLASTIC_HARDENING) {
        hardening_update(s, c.hardening, c.hardening.y, c.spread.y, strain, k, h);
    } else if (plastic_model == PLASTIC_TIME_INDEPENDENT) {
        hardening_update(s, c.hardening, 0.0, c.spread.y, strain, k, h);
    } else if (plastic_model == PLASTIC_PERFECT) {
        perfect_update(s, strain, c.hardening.w);
    }
    var out = ChannelForce((*s).plastic.x, 0.0, 0.0, 0.0);
    if (friction_model == FRICTION_DWELL) {
        let d = dwell_update(s, c.dwell, c.spread.xzw, strain, h, element);
        out.stress = c.dwell.x * d;
        out.stiffness = c.dwell.x;
    } else if (friction_model == FRICTION_DAHL) {
        let sigma = dahl_advance(s, c.dahl, strain);
        out.stress = sigma;
        out.damping = dahl_rate_coefficient(c.dahl, sigma, strain, rate, dt);
    }
    return out;
}
